// One agent's configuration: its fields, the enabled switch, save, delete and the connection test.
import { Chat } from "@agentry/chat-sdk";
import { useEffect, useId, useState } from "react";
import { errorText } from "../session";
import { approverList, fieldOfMessage, forPeople, parseHeaders, pricesOf, suggestedList, takenError, validateAgent, type AgentForm } from "../validate";
import { Field } from "./fields";
import { errorMap, useEditorForm, type EditorForm } from "./useEditorForm";

const agentFields = ["agentId", "provider", "name", "icon", "greeting", "introductoryMessage", "suggestedMessages", "deploymentUrl", "agentRef", "headers", "approvers", "audience", "auth", "tokenAudience", "inputPrice", "outputPrice"];
export const noIds: readonly string[] = [];

function formOf(a: Chat.AgentConfig | undefined): AgentForm {
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
    audience: (a?.audience ?? []).join(", "),
    auth: a?.auth ?? "headers",
    tokenAudience: a?.tokenAudience ?? "",
    inputPrice: a?.prices ? String(a.prices.inputPerMillion) : "",
    outputPrice: a?.prices ? String(a.prices.outputPerMillion) : "",
  };
}

function configOf(form: AgentForm, enabled: boolean): Chat.AgentConfigWrite {
  const { headers } = parseHeaders(form.headers);
  const prices = pricesOf(form);
  return {
    provider: form.provider as Chat.AgentProvider,
    name: form.name.trim(),
    icon: form.icon.trim(),
    greeting: form.greeting,
    introductoryMessage: form.introductoryMessage,
    suggestedMessages: suggestedList(form.suggestedMessages),
    deploymentUrl: form.deploymentUrl.trim(),
    agentRef: form.agentRef.trim(),
    approvers: approverList(form.approvers),
    audience: approverList(form.audience),
    auth: form.auth as Chat.AgentAuth,
    tokenAudience: form.auth === "headers" ? "" : form.tokenAudience.trim(),
    enabled,
    ...(headers ? { headers } : {}),
    ...(prices ? { prices } : {}),
  };
}

export function AgentEditor({ agent, takenIds = noIds, onSaved, onDeleted }: {
  agent?: Chat.AgentConfig;
  /** A new agent's id must not be one of these: the PUT would replace (and disable) that agent. */
  takenIds?: readonly string[];
  onSaved(a: Chat.AgentConfig): void;
  onDeleted(): void;
}) {
  const isNew = !agent;
  const ed = useEditorForm(() => formOf(agent), agentFields, (form) => {
    const m = errorMap(validateAgent(form));
    const taken = isNew ? takenError("agent", form.agentId, takenIds) : undefined;
    if (taken) m["agentId"] ??= taken;
    return m;
  });
  const [enabled, toggle] = useEnabled(agent, ed, onSaved);
  const [test, setTest] = useState<Chat.ConnectionTest | undefined>();
  const headingId = useId();

  const save = () =>
    ed.submit(async () => {
      const saved = await Chat.saveAgentConfig(ed.form.agentId, configOf(ed.form, enabled));
      ed.setStatus("Saved.");
      ed.setForm((x) => ({ ...x, headers: "" }));
      onSaved(saved);
    }, (e) => (e.code === "ERR_UID_ALREADY_EXISTS" ? "agentId" : priceField(e.message) ?? fieldOfMessage(e.message, agentFields))); // a taken uid names no field
  const remove = async () => {
    if (isNew || !window.confirm(`Delete the agent ${agent.agentId}? Its frontend actions are deleted too.`)) return;
    await ed.run(async () => {
      await Chat.deleteAgentConfig(agent.agentId);
      onDeleted();
    }, (e) => ed.setStatus(`Not deleted: ${errorText(e)}`));
  };
  const runTest = async () => {
    if (isNew) return;
    setTest(undefined);
    await ed.run(async () => setTest(await Chat.testAgentConnection(agent.agentId)),
      (e) => setTest({ ok: false, status: 0, contentType: "", firstEvents: null, error: errorText(e) }));
  };

  const runImport = async () => {
    if (isNew) return;
    await ed.run(async () => {
      const { agent: filled, addedActions } = await Chat.importAgentConfig(agent.agentId);
      ed.setForm(() => formOf(filled));
      ed.setStatus(addedActions.length ? `Filled from the agent; frontend actions added: ${addedActions.join(", ")}.` : "Filled from the agent; no frontend action was missing.");
      onSaved(filled);
    }, (e) => ed.setStatus(`Not filled: ${forPeople(errorText(e))}`));
  };

  return (
    <section className="agentry-web__panel" aria-labelledby={headingId}>
      <div className="agentry-web__panel-head">
        <h1 id={headingId} className="agentry-web__title">
          {isNew ? "New agent" : `Agent ${agent.name || agent.agentId}`}
        </h1>
        <EnabledSwitch enabled={enabled} busy={ed.busy} onToggle={(on) => void toggle(on)} />
      </div>
      <form className="agentry-web__form" onSubmit={(e) => { e.preventDefault(); void save(); }} noValidate>
        <AgentFields ed={ed} isNew={isNew} hasHeaders={!!agent?.hasHeaders} />
        <div className="agentry-web__actions-row">
          <button type="submit" className="agentry-web__button" disabled={ed.busy}>
            Save
          </button>
          {!isNew ? (
            <>
              <button type="button" className="agentry-web__button agentry-web__button--secondary" disabled={ed.busy} onClick={() => void runTest()}>
                Test connection
              </button>
              <button type="button" className="agentry-web__button agentry-web__button--secondary" disabled={ed.busy} onClick={() => void runImport()}
                title="Fill empty fields and add missing frontend actions from what the agent says of itself">
                Fill from the agent
              </button>
              <button type="button" className="agentry-web__button agentry-web__button--danger" disabled={ed.busy} onClick={() => void remove()}>
                Delete
              </button>
            </>
          ) : null}
          <p className="agentry-web__status-text" role="status">
            {ed.status || (isNew ? "Saving fills the empty fields and frontend actions from the agent, when it describes itself." : "")}
          </p>
        </div>
        {test ? <TestResult test={test} /> : null}
      </form>
    </section>
  );
}

/** The agent's enabled switch: saved at once for an agent that exists, with the form for a new one. */
function useEnabled(agent: Chat.AgentConfig | undefined, ed: EditorForm<AgentForm>, onSaved: (a: Chat.AgentConfig) => void) {
  const [enabled, setEnabled] = useState(agent?.enabled ?? false);
  const savedEnabled = agent?.enabled;
  useEffect(() => {
    if (savedEnabled !== undefined) setEnabled(savedEnabled);
  }, [savedEnabled]);
  const toggle = async (on: boolean) => {
    setEnabled(on);
    if (!agent) return;
    await ed.run(async () => {
      const saved = await Chat.setAgentEnabled(agent.agentId, on);
      ed.setStatus(on ? "Enabled: users see this agent." : "Disabled: users no longer see this agent.");
      onSaved(saved);
    }, (e) => {
      setEnabled(!on);
      ed.setStatus(`Not changed: ${errorText(e)}`);
    });
  };
  return [enabled, toggle] as const;
}

/** The switch is named "Enabled" (its state says on or off); the visible text says the state
 * in words, so an off switch does not read "Enabled". */
function EnabledSwitch({ enabled, busy, onToggle }: { enabled: boolean; busy: boolean; onToggle(on: boolean): void }) {
  const id = useId();
  return (
    <label className="agentry-web__switch-row" htmlFor={id}>
      <input id={id} type="checkbox" role="switch" className="agentry-web__switch" checked={enabled} disabled={busy} aria-label="Enabled"
        onChange={(e) => onToggle(e.target.checked)} />
      <span className={`agentry-web__switch-text agentry-web__switch-text--${enabled ? "on" : "off"}`} aria-hidden="true">
        {enabled ? "Enabled" : "Disabled"}
      </span>
    </label>
  );
}

function AgentFields({ ed, isNew, hasHeaders }: { ed: EditorForm<AgentForm>; isNew: boolean; hasHeaders: boolean }) {
  const { form, set, shown } = ed;
  const providerId = useId();
  const authId = useId();
  const authError = shown("auth");
  return (
    <>
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
            <option value="a2a">A2A</option>
          </select>
          <p id={`${providerId}-hint`} className="agentry-web__hint">
            {providerHint[form.provider] ?? providerHint["ag-ui"]}
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
        required={form.agentRef.trim() === ""} mono placeholder={urlPlaceholders[form.provider] ?? urlPlaceholders["ag-ui"]}
        hint="https (plain http only on development servers). Required unless an in-cluster Agent is named below." />
      <Field name="agentRef" label="In-cluster Agent (instead of a URL)" value={form.agentRef} onChange={set("agentRef")} error={shown("agentRef")}
        mono placeholder="namespace/name" />
      <Field name="headers" label="Headers" value={form.headers} onChange={set("headers")} error={shown("headers")} multiline rows={2} mono
        placeholder='{"Authorization": "Bearer …"}'
        hint={hasHeaders ? "headers set: they are never shown; type a JSON object to replace them ({} clears them)." : "A JSON object of header names and values; write-only."} />
      <div className="agentry-web__field" data-field="auth">
        <div className="agentry-web__label-row">
          <label htmlFor={authId} className="agentry-web__label">Who is asking</label>
        </div>
        <select id={authId} className="agentry-web__input" value={form.auth} aria-invalid={authError ? true : undefined}
          aria-describedby={authError ? `${authId}-hint ${authId}-error` : `${authId}-hint`} onChange={(e) => set("auth")(e.target.value)}>
          <option value="headers">The headers only</option>
          <option value="chat-jwt">A token this chat signs for each person</option>
          <option value="service-account">This chat's ServiceAccount</option>
        </select>
        <p id={`${authId}-hint`} className="agentry-web__hint">{authHint[form.auth] ?? authHint["headers"]}</p>
        {authError ? (
          <p id={`${authId}-error`} className="agentry-web__field-error" role="alert">{authError}</p>
        ) : null}
      </div>
      {form.auth === "headers" ? null : (
        <Field name="tokenAudience" label="Token audience" value={form.tokenAudience} onChange={set("tokenAudience")} error={shown("tokenAudience")} mono
          placeholder={form.auth === "chat-jwt" ? "https://agents.example.com/api/agents/chef" : "agentry.dev/agents/namespace/name"}
          hint={form.auth === "chat-jwt"
            ? "The token's aud: one of the agent's spec.endpoint.auth.jwt.audiences. Empty: the Deployment URL."
            : "Empty: the Agent's own, agentry.dev/agents/<namespace>/<name>, which is what it accepts."} />
      )}
      <Field name="approvers" label="Approvers" value={form.approvers} onChange={set("approvers")} error={shown("approvers")} mono
        placeholder="bob, group:ops:admins"
        hint="Who approves the tool calls that need approval: user ids, or group:<id>:admins / group:<id>:moderators. Empty: the person talking to the agent." />
      <Field name="audience" label="Who may use it" value={form.audience} onChange={set("audience")} error={shown("audience")} mono
        placeholder="group:kitchen, idp:chefs, dave"
        hint="User ids, group:<id> (that chat group's members) or idp:<group> (your identity provider's group). Empty: everyone. Others do not see the agent." />
      <div className="agentry-web__grid">
        <Field name="inputPrice" label="Input price" value={form.inputPrice} onChange={set("inputPrice")} error={shown("inputPrice")}
          placeholder="0.15" hint="US$ per 1M input tokens. Empty (both): no cost is shown, only tokens." />
        <Field name="outputPrice" label="Output price" value={form.outputPrice} onChange={set("outputPrice")} error={shown("outputPrice")}
          placeholder="0.60" hint="US$ per 1M output tokens." />
      </div>
    </>
  );
}

/** The form field of the server's price errors (prices.inputPerMillion, prices.outputPerMillion). */
function priceField(message: string): string | undefined {
  if (message.startsWith("prices.inputPerMillion")) return "inputPrice";
  if (message.startsWith("prices.outputPerMillion")) return "outputPrice";
  return undefined;
}

// What a Deployment URL of each provider looks like.
const urlPlaceholders: Readonly<Record<string, string>> = {
  "ag-ui": "https://agents.example.com/api/agents/chef/ag-ui",
  mastra: "https://agents.example.com/api/agents/chef/generate",
  a2a: "https://agents.example.com/a2a/chef/.well-known/agent-card.json",
};

const providerHint: Readonly<Record<string, string>> = {
  "ag-ui": "Streams from the Deployment URL (AG-UI).",
  mastra: "POSTs to the agent's /generate URL.",
  a2a: "An Agent2Agent agent: the Deployment URL is its agent card (…/.well-known/agent-card.json) or its endpoint; an in-cluster Agent is called at its A2A endpoint.",
};

const authHint: Readonly<Record<string, string>> = {
  headers: "The agent sees the headers above; it cannot tell people apart.",
  "chat-jwt": "Each call carries Authorization: Bearer <a 5-minute JWT> naming the person (sub) and the conversation; the agent verifies it with this chat's keys (/chat/v1/.well-known/jwks.json).",
  "service-account": "Each call carries Authorization: Bearer <this chat's ServiceAccount token> for the Agent named above; list the chat's ServiceAccount in the Agent's spec.endpoint.auth.serviceAccounts. No secret to share; the agent cannot tell people apart.",
};

function TestResult({ test }: { test: Chat.ConnectionTest }) {
  return (
    <div className={`agentry-web__test agentry-web__test--${test.ok ? "ok" : "failed"}`} role="status" aria-label="Connection test result">
      <strong>{test.ok ? "Connection works" : "Connection failed"}</strong>
      <span>
        {test.status ? `HTTP ${test.status}` : ""}
        {test.contentType ? ` · ${test.contentType}` : ""}
        {test.firstEvents?.length ? ` · events: ${test.firstEvents.join(", ")}` : ""}
      </span>
      {test.error ? <span>{test.error}</span> : null}
    </div>
  );
}
