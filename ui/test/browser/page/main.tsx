// The browser tests' page: /?case=<name>[&token=…][&params=<json>][&host=…][&strict=0] mounts
// cases/<name>.tsx inside <div class="chat"> (in React.StrictMode unless strict=0) and sets
// window.__case = {name, ready: true} once it has rendered, or {…, error} when it failed.
// Without ?case it lists the cases (handy with `node test/browser/server.mjs`).
import { Component, StrictMode, useEffect, type ReactElement, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import type { CaseContext, CaseFactory } from "./case";

// The UI kit's stylesheets, once its build has produced them: a glob, so the page builds (and
// the smoke case runs) before the kit has any CSS. Tokens first, then the component styles.
const kitCss = import.meta.glob("../../../packages/ui-kit/dist/{css-variables,styles}.css", { eager: true });
void kitCss;

// Every case file, each loaded only when asked for (one broken case breaks no other).
const cases = import.meta.glob<{ default: CaseFactory }>("./cases/*.tsx");
const caseNames = Object.keys(cases)
  .map((p) => p.replace(/^\.\/cases\//, "").replace(/\.tsx$/, ""))
  .sort();

window.__events ??= [];
window.__errors ??= [];
window.addEventListener("error", (e) => window.__errors.push(String(e.error?.stack ?? e.message)));
window.addEventListener("unhandledrejection", (e) => {
  const r = e.reason as { stack?: string } | undefined;
  window.__errors.push(String(r?.stack ?? e.reason));
});

const root = createRoot(document.getElementById("root")!);

function fail(name: string, message: string) {
  window.__case = { name, ready: false, error: message };
  root.render(
    <pre role="alert" data-testid="case-error">
      {message}
    </pre>,
  );
}

class Boundary extends Component<{ name: string; children: ReactNode }, { error?: Error }> {
  override state: { error?: Error } = {};
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override componentDidCatch(error: Error) {
    window.__case = { name: this.props.name, ready: false, error: String(error.stack ?? error) };
  }
  override render() {
    if (this.state.error) {
      return (
        <pre role="alert" data-testid="case-error">
          {String(this.state.error.stack ?? this.state.error)}
        </pre>
      );
    }
    return this.props.children;
  }
}

function Ready({ name, children }: { name: string; children: ReactNode }) {
  useEffect(() => {
    if (!window.__case?.error) window.__case = { name, ready: true };
  }, [name]);
  return <>{children}</>;
}

async function main() {
  const q = new URLSearchParams(location.search);
  const name = q.get("case");
  if (!name) {
    document.title = "Cases";
    root.render(
      <nav aria-label="Cases">
        <ul>
          {caseNames.map((n) => (
            <li key={n}>
              <a href={`?case=${encodeURIComponent(n)}`}>{n}</a>
            </li>
          ))}
        </ul>
      </nav>,
    );
    return;
  }
  document.title = `${name} · Agentry UI kit test page`;
  const load = cases[`./cases/${name}.tsx`];
  if (!load) return fail(name, `no case "${name}"; cases: ${caseNames.join(", ") || "(none)"}`);
  let params: Record<string, unknown> = {};
  try {
    params = q.has("params") ? (JSON.parse(q.get("params")!) as Record<string, unknown>) : {};
  } catch (e) {
    return fail(name, `params is not JSON: ${String(e)}`);
  }
  const ctx: CaseContext = { name, host: q.get("host") ?? location.origin, params };
  const token = q.get("token");
  if (token) ctx.token = token;
  let element: ReactElement;
  try {
    element = await (await load()).default(ctx);
  } catch (e) {
    return fail(name, `case "${name}" failed to start: ${String((e as Error)?.stack ?? e)}`);
  }
  const tree = (
    <Boundary name={name}>
      <div className="chat">
        <Ready name={name}>{element}</Ready>
      </div>
    </Boundary>
  );
  root.render(q.get("strict") === "0" ? tree : <StrictMode>{tree}</StrictMode>);
}

void main();
