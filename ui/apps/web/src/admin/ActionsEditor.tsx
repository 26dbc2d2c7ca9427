// An agent's frontend actions: the list, and the editor of the one chosen (or a new one).
import { Chat } from "@agentry/chat-sdk";
import { useCallback, useEffect, useId, useMemo, useState } from "react";
import { errorText } from "../session";
import { fieldOfMessage, takenError, validateAction, type ActionForm } from "../validate";
import { noIds } from "./AgentEditor";
import { Field } from "./fields";
import { errorMap, useEditorForm } from "./useEditorForm";

const actionFields = ["name", "displayName", "executionText", "description", "parameters"];

const emptyAction: ActionForm = {
  name: "",
  displayName: "",
  executionText: "",
  description: "",
  parameters: '{\n  "type": "object",\n  "required": [],\n  "properties": {}\n}',
};

function actionForm(a: Chat.FrontendAction): ActionForm {
  return {
    name: a.name,
    displayName: a.displayName,
    executionText: a.executionText ?? "",
    description: a.description,
    parameters: JSON.stringify(a.parameters, null, 2),
  };
}

export function ActionsEditor({ agentId }: { agentId: string }) {
  const [actions, setActions] = useState<Chat.FrontendAction[]>([]);
  const [editing, setEditing] = useState<string | "new" | undefined>();
  const [error, setError] = useState("");
  const headingId = useId();
  const reload = useCallback(async () => {
    try {
      setActions(await Chat.getFrontendActions(agentId));
      setError("");
    } catch (e) {
      setError(errorText(e));
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
  action?: Chat.FrontendAction;
  /** A new action's name must not be one of these: the PUT would replace that action. */
  takenNames?: readonly string[];
  onSaved(name: string): void;
  onDeleted(): void;
}) {
  const isNew = !action;
  const ed = useEditorForm(() => (action ? actionForm(action) : emptyAction), actionFields, (form) => {
    const m = errorMap(validateAction(form));
    const taken = isNew ? takenError("action", form.name, takenNames) : undefined;
    if (taken) m["name"] ??= taken;
    return m;
  });
  const { form, set, shown } = ed;
  const headingId = useId();
  const save = () =>
    ed.submit(async () => {
      await Chat.saveFrontendAction(agentId, form.name, {
        displayName: form.displayName.trim(),
        executionText: form.executionText.trim(),
        description: form.description.trim(),
        parameters: JSON.parse(form.parameters) as unknown,
      });
      ed.setStatus("Saved.");
      onSaved(form.name);
    }, (e) => fieldOfMessage(e.message, actionFields));
  const remove = async () => {
    if (isNew || !window.confirm(`Delete the action ${action.name}?`)) return;
    await ed.run(async () => {
      await Chat.deleteFrontendAction(agentId, action.name);
      onDeleted();
    }, (e) => ed.setStatus(`Not deleted: ${errorText(e)}`));
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
        <button type="submit" className="agentry-web__button" disabled={ed.busy}>
          Save action
        </button>
        {!isNew ? (
          <button type="button" className="agentry-web__button agentry-web__button--danger" disabled={ed.busy} onClick={() => void remove()}>
            Delete action
          </button>
        ) : null}
        <p className="agentry-web__status-text" role="status">
          {ed.status}
        </p>
      </div>
    </form>
  );
}
