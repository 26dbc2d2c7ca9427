// Agent configurations and their frontend actions (admins: the /chat/v1/agents routes with
// their bearer token). Forms check the server's rules as the admin types (../validate.ts) and
// show the server's errors at the field they name.
import "./admin.css";
import { useCallback, useEffect, useId, useMemo, useState } from "react";
import { adminApi, ApiError, type AgentConfig, type ConnectionTest, type FrontendAction, type Provider } from "../admin-api";
import { approverList, fieldOfMessage, forPeople, parseHeaders, suggestedList, takenError, validateAction, validateAgent, type ActionForm, type AgentForm, type FieldError } from "../validate";
import { Field } from "./fields";

const agentFields = ["agentId", "provider", "name", "icon", "greeting", "introductoryMessage", "suggestedMessages", "deploymentUrl", "agentRef", "headers", "approvers"];
const actionFields = ["name", "displayName", "executionText", "description", "parameters"];

const noIds: readonly string[] = [];

function errorMap(errs: readonly FieldError[]): Record<string, string> {
  const m: Record<string, string> = {};
  for (const e of errs) m[e.field] ??= e.message;
  return m;
}

function sayError(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function AdminPage() {
  const [agents, setAgents] = useState<AgentConfig[]>([]);
  const [selected, setSelected] = useState<string | "new" | undefined>();
  const [error, setError] = useState("");
  const [loaded, setLoaded] = useState(false);

  const reload = useCallback(async (select?: string) => {
    try {
      const list = await adminApi.listAgents();
      list.sort((a, b) => a.agentId.localeCompare(b.agentId));
      setAgents(list);
      setError("");
      setSelected((s) => select ?? (s === undefined ? list[0]?.agentId : s));
    } catch (e) {
      setError(sayError(e));
    } finally {
      setLoaded(true);
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);

  // The list's switches: one request per agent at a time, the list shows the answer.
  const [toggling, setToggling] = useState<ReadonlySet<string>>(new Set());
  const toggleListed = async (a: AgentConfig, on: boolean) => {
    setToggling((t) => new Set(t).add(a.agentId));
    setAgents((list) => list.map((x) => (x.agentId === a.agentId ? { ...x, enabled: on } : x)));
    try {
      const saved = await adminApi.setEnabled(a.agentId, on);
      setAgents((list) => list.map((x) => (x.agentId === a.agentId ? saved : x)));
      setError("");
    } catch (e) {
      setAgents((list) => list.map((x) => (x.agentId === a.agentId ? { ...x, enabled: !on } : x)));
      setError(`${a.name || a.agentId} was not ${on ? "enabled" : "disabled"}: ${sayError(e)}`);
    } finally {
      setToggling((t) => {
        const n = new Set(t);
        n.delete(a.agentId);
        return n;
      });
    }
  };

  const current = agents.find((a) => a.agentId === selected);
  const agentIds = useMemo(() => agents.map((a) => a.agentId), [agents]);
  return (
    <div className="agentry-web__admin">
      <nav className="agentry-web__sidebar agentry-web__admin-nav" aria-label="Agents">
        <div className="agentry-web__admin-nav-head">
          <h2 className="agentry-web__section-title">Agents</h2>
          <button type="button" className="agentry-web__button agentry-web__button--small" onClick={() => setSelected("new")}>
            New agent
          </button>
        </div>
        <ul className="agentry-web__list">
          {agents.map((a) => (
            <li key={a.agentId} className="agentry-web__admin-agent">
              <button type="button" className="agentry-web__list-item" aria-current={a.agentId === selected ? "true" : undefined}
                onClick={() => setSelected(a.agentId)} data-agent={a.agentId}>
                <span className="agentry-web__avatar" aria-hidden="true">{a.icon && !/^(https?:|data:|\/)/.test(a.icon) ? a.icon : (a.name || a.agentId).slice(0, 1).toUpperCase()}</span>
                <span className="agentry-web__list-text">
                  <span className="agentry-web__list-title">{a.name || a.agentId}</span>
                  <span className="agentry-web__list-sub">
                    {a.agentId} · {a.provider} · <span className={`agentry-web__status-word agentry-web__status-word--${a.enabled ? "on" : "off"}`}>{a.enabled ? "Enabled" : "Disabled"}</span>
                  </span>
                </span>
              </button>
              {/* The on/off switch of the agent list, beside the row (a control inside the row's
                  button would be a button in a button). */}
              <input type="checkbox" role="switch" className="agentry-web__switch agentry-web__admin-agent-switch" checked={a.enabled}
                disabled={toggling.has(a.agentId)} aria-label={`${a.name || a.agentId} enabled`} data-agent-switch={a.agentId}
                onChange={(e) => void toggleListed(a, e.target.checked)} />
            </li>
          ))}
        </ul>
        {loaded && agents.length === 0 && !error ? <p className="agentry-web__muted agentry-web__section-empty">No agents configured.</p> : null}
      </nav>
      <main className="agentry-web__main agentry-web__admin-main" aria-label="Agent configuration">
        {error ? (
          <p className="agentry-web__error agentry-web__banner" role="alert">
            {error}
          </p>
        ) : null}
        {selected === "new" ? (
          <AgentEditor key="new" takenIds={agentIds} onSaved={(a) => void reload(a.agentId)} onDeleted={() => undefined} />
        ) : current ? (
          <>
            <AgentEditor key={current.agentId} agent={current}
              onSaved={(a) => void reload(a.agentId)} onDeleted={() => { setSelected(undefined); void reload(); }} />
            <ActionsEditor key={`actions-${current.agentId}`} agentId={current.agentId} />
          </>
        ) : loaded ? (
          <div className="agentry-web__empty">
            <h1 className="agentry-web__title">Agents</h1>
            <p className="agentry-web__muted">Choose an agent on the left, or create one.</p>
          </div>
        ) : null}
      </main>
    </div>
  );
}

function formOf(a: AgentConfig | undefined): AgentForm {
  return {
    agentId: a?.agentId ?? "",
    provider: a?.provider ?? "ag-ui",
    name: a?.name ?? "",
    icon: a?.icon ?? "",
    greeting: a?.greeting ?? "",
    introductoryMessage: a?.introductoryMessage ?? "",
    suggestedMessages: (a?.suggestedMessages ?? []).join("\n"),
    deploymentUrl: a?.deploymentUrl ?? "",
    agentRef: a?.agentRef ?? "",
    headers: "",
    approvers: (a?.approvers ?? []).join(", "),
  };
}

function AgentEditor({ agent, takenIds = noIds, onSaved, onDeleted }: {
  agent?: AgentConfig;
  /** A new agent's id must not be one of these: the PUT would replace (and disable) that agent. */
  takenIds?: readonly string[];
  onSaved(a: AgentConfig): void;
  onDeleted(): void;
}) {
  const isNew = !agent;
  const [form, setForm] = useState<AgentForm>(() => formOf(agent));
  const [enabled, setEnabled] = useState(agent?.enabled ?? false);
  const savedEnabled = agent?.enabled;
  useEffect(() => {
    if (savedEnabled !== undefined) setEnabled(savedEnabled);
  }, [savedEnabled]);
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [serverError, setServerError] = useState<FieldError | undefined>();
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);
  const [test, setTest] = useState<ConnectionTest | undefined>();
  const headingId = useId();
  const enabledId = useId();
  const providerId = useId();

  const errs = useMemo(() => {
    const m = errorMap(validateAgent(form));
    const taken = isNew ? takenError("agent", form.agentId, takenIds) : undefined;
    if (taken) m["agentId"] ??= taken;
    return m;
  }, [form, isNew, takenIds]);
  const shown = (f: string): string | undefined => {
    const m = serverError?.field === f ? serverError.message : touched[f] ? errs[f] : undefined;
    return m === undefined ? undefined : forPeople(m);
  };
  const set = (f: keyof AgentForm) => (v: string) => {
    setForm((x) => ({ ...x, [f]: v }));
    setTouched((t) => ({ ...t, [f]: true }));
    if (serverError?.field === f) setServerError(undefined);
    setStatus("");
  };

  const save = async () => {
    setTouched(Object.fromEntries(agentFields.map((f) => [f, true])));
    setServerError(undefined);
    if (Object.keys(errs).length) {
      setStatus("Fix the fields marked above.");
      return;
    }
    const { headers } = parseHeaders(form.headers);
    setBusy(true);
    try {
      const saved = await adminApi.putAgent(form.agentId, {
        provider: form.provider as Provider,
        name: form.name.trim(),
        icon: form.icon.trim(),
        greeting: form.greeting,
        introductoryMessage: form.introductoryMessage,
        suggestedMessages: suggestedList(form.suggestedMessages),
        deploymentUrl: form.deploymentUrl.trim(),
        agentRef: form.agentRef.trim(),
        approvers: approverList(form.approvers),
        enabled,
        ...(headers ? { headers } : {}),
      });
      setStatus("Saved.");
      setForm((x) => ({ ...x, headers: "" }));
      onSaved(saved);
    } catch (e) {
      // A taken uid is about the Agent ID, though the message names no field.
      const field = e instanceof ApiError ? (e.code === "ERR_UID_ALREADY_EXISTS" ? "agentId" : fieldOfMessage(e.message, agentFields)) : undefined;
      if (field) setServerError({ field, message: e instanceof Error ? e.message : "" });
      setStatus(`Not saved: ${forPeople(sayError(e))}`);
    } finally {
      setBusy(false);
    }
  };

  const toggle = async (on: boolean) => {
    setEnabled(on);
    if (isNew) return;
    setBusy(true);
    try {
      const saved = await adminApi.setEnabled(agent.agentId, on);
      setStatus(on ? "Enabled: users see this agent." : "Disabled: users no longer see this agent.");
      onSaved(saved);
    } catch (e) {
      setEnabled(!on);
      setStatus(`Not changed: ${sayError(e)}`);
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    if (isNew || !window.confirm(`Delete the agent ${agent.agentId}? Its frontend actions are deleted too.`)) return;
    setBusy(true);
    try {
      await adminApi.deleteAgent(agent.agentId);
      onDeleted();
    } catch (e) {
      setStatus(`Not deleted: ${sayError(e)}`);
      setBusy(false);
    }
  };

  const runTest = async () => {
    if (isNew) return;
    setBusy(true);
    setTest(undefined);
    try {
      setTest(await adminApi.testAgent(agent.agentId));
    } catch (e) {
      setTest({ ok: false, status: 0, contentType: "", firstEvents: null, error: sayError(e) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="agentry-web__panel" aria-labelledby={headingId}>
      <div className="agentry-web__panel-head">
        <h1 id={headingId} className="agentry-web__title">
          {isNew ? "New agent" : `Agent ${agent.name || agent.agentId}`}
        </h1>
        {/* The switch is named "Enabled" (its state says on or off); the visible text says the
            state in words, so an off switch does not read "Enabled". */}
        <label className="agentry-web__switch-row" htmlFor={enabledId}>
          <input id={enabledId} type="checkbox" role="switch" className="agentry-web__switch" checked={enabled} disabled={busy}
            aria-label="Enabled" onChange={(e) => void toggle(e.target.checked)} />
          <span className={`agentry-web__switch-text agentry-web__switch-text--${enabled ? "on" : "off"}`} aria-hidden="true">
            {enabled ? "Enabled" : "Disabled"}
          </span>
        </label>
      </div>
      <form className="agentry-web__form" onSubmit={(e) => { e.preventDefault(); void save(); }} noValidate>
        <div className="agentry-web__grid">
          <div className="agentry-web__field" data-field="provider">
            <div className="agentry-web__label-row">
              <label htmlFor={providerId} className="agentry-web__label">Provider</label>
              <span className="agentry-web__required" aria-hidden="true">*</span>
            </div>
            <select id={providerId} className="agentry-web__input" value={form.provider} required aria-describedby={`${providerId}-hint`}
              onChange={(e) => set("provider")(e.target.value)}>
              <option value="ag-ui">AG-UI</option>
              <option value="mastra">Mastra</option>
            </select>
            <p id={`${providerId}-hint`} className="agentry-web__hint">
              {form.provider === "mastra" ? "POSTs to the agent's /generate URL." : "Streams from the Deployment URL (AG-UI)."}
            </p>
          </div>
          <Field name="agentId" label="Agent ID" value={form.agentId} onChange={set("agentId")} error={shown("agentId")} required disabled={!isNew}
            hint={isNew ? "Letters, digits, _ or -; the agent's user id. It cannot change later." : undefined} mono />
          <Field name="name" label="Name" value={form.name} onChange={set("name")} error={shown("name")} required />
          <Field name="icon" label="Icon" value={form.icon} onChange={set("icon")} error={shown("icon")} hint="An image URL or an emoji." />
        </div>
        <Field name="greeting" label="Greeting" value={form.greeting} onChange={set("greeting")} error={shown("greeting")} />
        <Field name="introductoryMessage" label="Introductory Message" value={form.introductoryMessage} onChange={set("introductoryMessage")}
          error={shown("introductoryMessage")} multiline rows={2} />
        <Field name="suggestedMessages" label="Suggested messages" value={form.suggestedMessages} onChange={set("suggestedMessages")}
          error={shown("suggestedMessages")} multiline rows={3} hint="One per line, up to 10." />
        <Field name="deploymentUrl" label="Deployment URL" value={form.deploymentUrl} onChange={set("deploymentUrl")} error={shown("deploymentUrl")}
          required={form.agentRef.trim() === ""} mono placeholder="https://agents.example.com/api/agents/chef/ag-ui"
          hint="https (plain http only on development servers). Required unless an in-cluster Agent is named below." />
        <Field name="agentRef" label="In-cluster Agent (instead of a URL)" value={form.agentRef} onChange={set("agentRef")} error={shown("agentRef")}
          mono placeholder="namespace/name" />
        <Field name="headers" label="Headers" value={form.headers} onChange={set("headers")} error={shown("headers")} multiline rows={2} mono
          placeholder='{"Authorization": "Bearer …"}'
          hint={agent?.hasHeaders ? "headers set: they are never shown; type a JSON object to replace them ({} clears them)." : "A JSON object of header names and values; write-only."} />
        <Field name="approvers" label="Approvers" value={form.approvers} onChange={set("approvers")} error={shown("approvers")} mono
          placeholder="bob, group:ops:admins"
          hint="Who approves the tool calls that need approval: user ids, or group:<id>:admins / group:<id>:moderators. Empty: the person talking to the agent." />
        <div className="agentry-web__actions-row">
          <button type="submit" className="agentry-web__button" disabled={busy}>
            Save
          </button>
          {!isNew ? (
            <>
              <button type="button" className="agentry-web__button agentry-web__button--secondary" disabled={busy} onClick={() => void runTest()}>
                Test connection
              </button>
              <button type="button" className="agentry-web__button agentry-web__button--danger" disabled={busy} onClick={() => void remove()}>
                Delete
              </button>
            </>
          ) : null}
          <p className="agentry-web__status-text" role="status">
            {status}
          </p>
        </div>
        {test ? (
          <div className={`agentry-web__test agentry-web__test--${test.ok ? "ok" : "failed"}`} role="status" aria-label="Connection test result">
            <strong>{test.ok ? "Connection works" : "Connection failed"}</strong>
            <span>
              {test.status ? `HTTP ${test.status}` : ""}
              {test.contentType ? ` · ${test.contentType}` : ""}
              {test.firstEvents?.length ? ` · events: ${test.firstEvents.join(", ")}` : ""}
            </span>
            {test.error ? <span>{test.error}</span> : null}
          </div>
        ) : null}
      </form>
    </section>
  );
}

const emptyAction: ActionForm = {
  name: "",
  displayName: "",
  executionText: "",
  description: "",
  parameters: '{\n  "type": "object",\n  "required": [],\n  "properties": {}\n}',
};

function actionForm(a: FrontendAction): ActionForm {
  return {
    name: a.name,
    displayName: a.displayName,
    executionText: a.executionText ?? "",
    description: a.description,
    parameters: JSON.stringify(a.parameters, null, 2),
  };
}

function ActionsEditor({ agentId }: { agentId: string }) {
  const [actions, setActions] = useState<FrontendAction[]>([]);
  const [editing, setEditing] = useState<string | "new" | undefined>();
  const [error, setError] = useState("");
  const headingId = useId();
  const reload = useCallback(async () => {
    try {
      setActions(await adminApi.listActions(agentId));
      setError("");
    } catch (e) {
      setError(sayError(e));
    }
  }, [agentId]);
  useEffect(() => {
    void reload();
  }, [reload]);
  const current = actions.find((a) => a.name === editing);
  const actionNames = useMemo(() => actions.map((a) => a.name), [actions]);
  return (
    <section className="agentry-web__panel" aria-labelledby={headingId}>
      <div className="agentry-web__panel-head">
        <h2 id={headingId} className="agentry-web__subtitle">
          Frontend actions
        </h2>
        <button type="button" className="agentry-web__button agentry-web__button--secondary agentry-web__button--small" onClick={() => setEditing("new")}>
          New action
        </button>
      </div>
      {error ? <p className="agentry-web__error" role="alert">{error}</p> : null}
      {actions.length ? (
        <ul className="agentry-web__action-list">
          {actions.map((a) => (
            <li key={a.name}>
              <button type="button" className="agentry-web__list-item" aria-current={a.name === editing ? "true" : undefined} onClick={() => setEditing(a.name)}>
                <span className="agentry-web__list-text">
                  <span className="agentry-web__list-title">{a.displayName}</span>
                  <span className="agentry-web__list-sub">{a.name}</span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="agentry-web__muted">No frontend actions.</p>
      )}
      {editing === "new" ? (
        <ActionEditor key="new" agentId={agentId} takenNames={actionNames} onSaved={(name) => { setEditing(name); void reload(); }} onDeleted={() => undefined} />
      ) : current ? (
        <ActionEditor key={current.name} agentId={agentId} action={current} onSaved={() => void reload()}
          onDeleted={() => { setEditing(undefined); void reload(); }} />
      ) : null}
    </section>
  );
}

function ActionEditor({ agentId, action, takenNames = noIds, onSaved, onDeleted }: {
  agentId: string;
  action?: FrontendAction;
  /** A new action's name must not be one of these: the PUT would replace that action. */
  takenNames?: readonly string[];
  onSaved(name: string): void;
  onDeleted(): void;
}) {
  const isNew = !action;
  const [form, setForm] = useState<ActionForm>(() => (action ? actionForm(action) : emptyAction));
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [serverError, setServerError] = useState<FieldError | undefined>();
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);
  const headingId = useId();
  const errs = useMemo(() => {
    const m = errorMap(validateAction(form));
    const taken = isNew ? takenError("action", form.name, takenNames) : undefined;
    if (taken) m["name"] ??= taken;
    return m;
  }, [form, isNew, takenNames]);
  const shown = (f: string): string | undefined => {
    const m = serverError?.field === f ? serverError.message : touched[f] ? errs[f] : undefined;
    return m === undefined ? undefined : forPeople(m);
  };
  const set = (f: keyof ActionForm) => (v: string) => {
    setForm((x) => ({ ...x, [f]: v }));
    setTouched((t) => ({ ...t, [f]: true }));
    if (serverError?.field === f) setServerError(undefined);
    setStatus("");
  };
  const save = async () => {
    setTouched(Object.fromEntries(actionFields.map((f) => [f, true])));
    setServerError(undefined);
    if (Object.keys(errs).length) {
      setStatus("Fix the fields marked above.");
      return;
    }
    setBusy(true);
    try {
      await adminApi.putAction(agentId, form.name, {
        displayName: form.displayName.trim(),
        executionText: form.executionText.trim(),
        description: form.description.trim(),
        parameters: JSON.parse(form.parameters) as unknown,
      });
      setStatus("Saved.");
      onSaved(form.name);
    } catch (e) {
      const field = e instanceof ApiError ? fieldOfMessage(e.message, actionFields) : undefined;
      if (field) setServerError({ field, message: e instanceof Error ? e.message : "" });
      setStatus(`Not saved: ${forPeople(sayError(e))}`);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    if (isNew || !window.confirm(`Delete the action ${action.name}?`)) return;
    setBusy(true);
    try {
      await adminApi.deleteAction(agentId, action.name);
      onDeleted();
    } catch (e) {
      setStatus(`Not deleted: ${sayError(e)}`);
      setBusy(false);
    }
  };
  return (
    <form className="agentry-web__form agentry-web__subform" aria-labelledby={headingId} onSubmit={(e) => { e.preventDefault(); void save(); }} noValidate>
      <h3 id={headingId} className="agentry-web__subtitle">
        {isNew ? "New frontend action" : `Action ${action.displayName}`}
      </h3>
      <div className="agentry-web__grid">
        <Field name="displayName" label="Display Name" value={form.displayName} onChange={set("displayName")} error={shown("displayName")} required />
        <Field name="executionText" label="Execution Text" value={form.executionText} onChange={set("executionText")} error={shown("executionText")}
          hint="Shown while the action runs." />
        <Field name="name" label="Name" value={form.name} onChange={set("name")} error={shown("name")} required disabled={!isNew} mono
          hint={isNew ? "The tool name the agent calls: letters, digits, _ or -." : undefined} />
      </div>
      <Field name="description" label="Description" value={form.description} onChange={set("description")} error={shown("description")} multiline rows={2} required />
      <Field name="parameters" label="Parameters" value={form.parameters} onChange={set("parameters")} error={shown("parameters")}
        multiline rows={9} mono required hint="A JSON Schema of the inputs, which the agent fills: type object, properties (each with type and description), required." />
      <div className="agentry-web__actions-row">
        <button type="submit" className="agentry-web__button" disabled={busy}>
          Save action
        </button>
        {!isNew ? (
          <button type="button" className="agentry-web__button agentry-web__button--danger" disabled={busy} onClick={() => void remove()}>
            Delete action
          </button>
        ) : null}
        <p className="agentry-web__status-text" role="status">
          {status}
        </p>
      </div>
    </form>
  );
}
