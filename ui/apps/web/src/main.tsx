import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "@agentry/ui-kit/css-variables.css";
import "@agentry/ui-kit/styles.css";
import "./app.css";
import "./chat/conversation.css";
import "./forms.css";
import "./narrow.css";
import { App } from "./App";

const root = document.getElementById("root");
if (!root) throw new Error("no #root element");
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
