//! Certificates for the MCP node tests, made at test time with rcgen and written as PEM into a
//! temporary directory: a CA, the node's certificate for `localhost` and `127.0.0.1` signed by
//! it, a host's client certificate signed by it, and a second CA that signed neither (for the
//! "wrong CA" cases).

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};

/// PEM files in a directory removed when dropped.
pub struct Certs {
    dir: tempfile::TempDir,
    /// The CA that signed the node's and the host's certificates.
    pub ca: PathBuf,
    /// The node's certificate (`localhost`, `127.0.0.1`) and key.
    pub node_cert: PathBuf,
    pub node_key: PathBuf,
    /// A host's client certificate and key, for mTLS.
    pub client_cert: PathBuf,
    pub client_key: PathBuf,
    /// A CA that signed nothing here.
    pub other_ca: PathBuf,
}

impl Certs {
    pub fn new() -> Certs {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, pem: String| {
            let path = dir.path().join(name);
            std::fs::write(&path, pem).unwrap();
            path
        };
        let ca = ca("Switchboard test CA");
        let other = ca_certificate("Some other CA");

        let node_key = KeyPair::generate().unwrap();
        let mut node =
            CertificateParams::new(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
        node.distinguished_name.push(DnType::CommonName, "node");
        node.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let node_cert = node.signed_by(&node_key, &ca).unwrap();

        let client_key = KeyPair::generate().unwrap();
        let mut client = CertificateParams::new(vec!["host".into()]).unwrap();
        client.distinguished_name.push(DnType::CommonName, "host");
        client.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        let client_cert = client.signed_by(&client_key, &ca).unwrap();

        Certs {
            ca: write("ca.pem", ca.pem()),
            node_cert: write("node.pem", node_cert.pem()),
            node_key: write("node-key.pem", node_key.serialize_pem()),
            client_cert: write("host.pem", client_cert.pem()),
            client_key: write("host-key.pem", client_key.serialize_pem()),
            other_ca: write("other-ca.pem", other),
            dir,
        }
    }

    /// The directory holding the files.
    pub fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }
}

fn ca_params(name: &str) -> CertificateParams {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.distinguished_name.push(DnType::CommonName, name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    params
}

fn ca(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    CertifiedIssuer::self_signed(ca_params(name), KeyPair::generate().unwrap()).unwrap()
}

fn ca_certificate(name: &str) -> String {
    ca(name).pem()
}
