import { html, render } from "./html.js";
import { App } from "./app.js";

render(html`<${App} />`, document.getElementById("app"));
