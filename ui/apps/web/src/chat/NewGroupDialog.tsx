// "New group": name, id (from the name unless typed), type (public, private, password), the
// password, a description and the first members (people and agents). A modal <dialog>: the
// browser keeps focus inside and Escape closes it.
import { Chat } from "@agentry/chat-sdk";
import { ChatGroupEvents } from "@agentry/ui-kit";
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { errorText } from "../session";

const GUID = /^[A-Za-z0-9_-]{1,100}$/;

/** A group id from its name: "Book club!" → "book-club". */
export function guidOf(name: string): string {
  return name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
}

export interface NewGroupDialogProps {
  open: boolean;
  people: readonly Chat.User[];
  agents: readonly Chat.User[];
  onClose(): void;
  onCreated(group: Chat.Group): void;
}

interface GroupForm {
  name: string;
  /** The typed id (guidTyped), else the id follows the name. */
  guid: string;
  guidTyped: boolean;
  type: Chat.GroupType;
  password: string;
  description: string;
  members: ReadonlySet<string>;
}

const emptyForm: GroupForm = { name: "", guid: "", guidTyped: false, type: "public", password: "", description: "", members: new Set() };

export function NewGroupDialog({ open, people, agents, onClose, onCreated }: NewGroupDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const [f, setForm] = useState(emptyForm);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [tried, setTried] = useState(false);
  const ids = { title: useId(), name: useId(), guid: useId(), guidHint: useId(), password: useId(), description: useId(), members: useId(), error: useId() };
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      setForm(emptyForm);
      setError("");
      setTried(false);
      d.showModal();
    } else if (!open && d.open) d.close();
  }, [open]);

  const id = f.guidTyped ? f.guid : guidOf(f.name);
  const problems = {
    name: f.name.trim() === "" ? "A group needs a name" : undefined,
    guid: !GUID.test(id) ? "Use 1 to 100 letters, digits, - or _" : undefined,
    password: f.type === "password" && f.password === "" ? "A password group needs a password" : undefined,
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (problems.name || problems.guid || problems.password) return;
    setBusy(true);
    setError("");
    try {
      const g = new Chat.Group(id, f.name.trim(), f.type, f.type === "password" ? f.password : undefined);
      if (f.description.trim()) g.setDescription(f.description.trim());
      const created = await Chat.createGroup(g, [...f.members].map((uid) => new Chat.GroupMember(uid, "participant")));
      ChatGroupEvents.ccGroupCreated.next(created);
      onCreated(created);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} className="agentry-web__dialog" aria-labelledby={ids.title} onClose={onClose}>
      <form className="agentry-web__form" onSubmit={(e) => void submit(e)} noValidate>
        <h2 id={ids.title} className="agentry-web__title">New group</h2>
        <GroupFields f={f} id={id} ids={ids} set={(patch) => setForm((x) => ({ ...x, ...patch }))} shown={(k) => (tried ? problems[k] : undefined)} />
        <fieldset className="agentry-web__fieldset">
          <legend className="agentry-web__label">Members</legend>
          <div className="agentry-web__choices" id={ids.members}>
            {[...people, ...agents].map((u) => (
              <label key={u.getUid()} className="agentry-web__choice">
                <input type="checkbox" checked={f.members.has(u.getUid())} onChange={() => setForm((x) => ({ ...x, members: toggled(x.members, u.getUid()) }))} />
                <span>{u.getName() || u.getUid()}{u.getKind() === "agent" ? <span className="agentry-web__muted"> · agent</span> : null}</span>
              </label>
            ))}
          </div>
        </fieldset>
        {error ? <p id={ids.error} className="agentry-web__error" role="alert">{error}</p> : null}
        <div className="agentry-web__actions-row">
          <button type="submit" className="agentry-web__button" disabled={busy}>Create group</button>
          <button type="button" className="agentry-web__button agentry-web__button--secondary" onClick={onClose}>Cancel</button>
        </div>
      </form>
    </dialog>
  );
}

const toggled = (set: ReadonlySet<string>, uid: string): ReadonlySet<string> => {
  const next = new Set(set);
  if (next.has(uid)) next.delete(uid);
  else next.add(uid);
  return next;
};

function GroupFields({ f, id, ids, set, shown }: {
  f: GroupForm;
  id: string;
  ids: Record<"name" | "guid" | "guidHint" | "password" | "description", string>;
  set(patch: Partial<GroupForm>): void;
  shown(field: "name" | "guid" | "password"): string | undefined;
}) {
  return (
    <>
      <div className="agentry-web__field">
        <label htmlFor={ids.name} className="agentry-web__label">Name <span className="agentry-web__required" aria-hidden="true">*</span></label>
        <input id={ids.name} className="agentry-web__input" value={f.name} required aria-invalid={shown("name") ? true : undefined}
          aria-describedby={shown("name") ? `${ids.name}-e` : undefined} onChange={(e) => set({ name: e.target.value })} autoFocus />
        {shown("name") ? <p id={`${ids.name}-e`} className="agentry-web__field-error">{shown("name")}</p> : null}
      </div>
      <div className="agentry-web__field">
        <label htmlFor={ids.guid} className="agentry-web__label">Group id <span className="agentry-web__required" aria-hidden="true">*</span></label>
        <input id={ids.guid} className="agentry-web__input agentry-web__input--mono" value={id} required aria-invalid={shown("guid") ? true : undefined}
          aria-describedby={`${ids.guidHint}${shown("guid") ? ` ${ids.guid}-e` : ""}`} onChange={(e) => set({ guidTyped: true, guid: e.target.value })} />
        <p id={ids.guidHint} className="agentry-web__hint">Part of the group's link; it cannot change later.</p>
        {shown("guid") ? <p id={`${ids.guid}-e`} className="agentry-web__field-error">{shown("guid")}</p> : null}
      </div>
      <fieldset className="agentry-web__fieldset">
        <legend className="agentry-web__label">Who can join</legend>
        {([
          ["public", "Public", "Anyone can find and join it"],
          ["private", "Private", "Only people its admins add"],
          ["password", "Password", "Anyone with the password"],
        ] as const).map(([value, label, hint]) => (
          <label key={value} className="agentry-web__choice">
            <input type="radio" name="group-type" value={value} checked={f.type === value} onChange={() => set({ type: value })} />
            <span><strong>{label}</strong> <span className="agentry-web__muted">{hint}</span></span>
          </label>
        ))}
      </fieldset>
      {f.type === "password" ? (
        <div className="agentry-web__field">
          <label htmlFor={ids.password} className="agentry-web__label">Password <span className="agentry-web__required" aria-hidden="true">*</span></label>
          <input id={ids.password} type="password" className="agentry-web__input" value={f.password} required autoComplete="new-password"
            aria-invalid={shown("password") ? true : undefined} aria-describedby={shown("password") ? `${ids.password}-e` : undefined}
            onChange={(e) => set({ password: e.target.value })} />
          {shown("password") ? <p id={`${ids.password}-e`} className="agentry-web__field-error">{shown("password")}</p> : null}
        </div>
      ) : null}
      <div className="agentry-web__field">
        <label htmlFor={ids.description} className="agentry-web__label">Description</label>
        <textarea id={ids.description} className="agentry-web__input" rows={2} value={f.description} onChange={(e) => set({ description: e.target.value })} />
      </div>
    </>
  );
}
