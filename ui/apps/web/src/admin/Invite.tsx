// Invitations (a chat without an identity provider): an admin invites a new person, or sends an
// existing one a new sign-in link, and copies the link to send it.
import { Chat } from "@agentry/chat-sdk";
import { useId, useState, type FormEvent } from "react";
import { errorText, invitationLink } from "../session";

/** A link made for a person, shown until dismissed: the code cannot be read again later. */
export interface MadeLink {
  readonly name: string;
  readonly link: string;
  readonly expiresAt: number;
}

export function madeLink(inv: Chat.Invitation): MadeLink {
  return { name: inv.user.getName() || inv.user.getUid(), link: invitationLink(inv.code), expiresAt: inv.expiresAt };
}

export function InvitationLink({ made, onDismiss }: { made: MadeLink; onDismiss(): void }) {
  const [copied, setCopied] = useState(false);
  const id = useId();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(made.link);
      setCopied(true);
    } catch {
      (document.getElementById(id) as HTMLInputElement | null)?.select(); // no clipboard: select it for ⌘C
    }
  };
  return (
    <section className="agentry-web__invite-link" aria-label={`Sign-in link for ${made.name}`}>
      <p>
        Send this link to <strong>{made.name}</strong>. It works once, until {new Date(made.expiresAt).toLocaleString()}; it is shown only now.
      </p>
      <div className="agentry-web__row">
        <input id={id} className="agentry-web__input agentry-web__input--mono" readOnly value={made.link} aria-label="Sign-in link"
          onFocus={(e) => e.currentTarget.select()} />
        <button type="button" className="agentry-web__button" onClick={() => void copy()}>
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <button type="button" className="agentry-web__link-button" onClick={onDismiss}>
        Done
      </button>
    </section>
  );
}

/** "Invite someone": a user id, a name and whether they are an admin. */
export function InviteForm({ onMade, onCancel }: { onMade(m: MadeLink): void; onCancel(): void }) {
  const [uid, setUid] = useState("");
  const [name, setName] = useState("");
  const [admin, setAdmin] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const uidId = useId();
  const nameId = useId();
  const errorId = useId();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      onMade(madeLink(await Chat.createInvitation({ uid: uid.trim(), name: name.trim(), ...(admin ? { role: "admin" } : {}) })));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="agentry-web__inline-form agentry-web__invite-form" aria-label="Invite someone" onSubmit={(e) => void submit(e)}>
      <label htmlFor={uidId}>User id</label>
      <input id={uidId} className="agentry-web__input" value={uid} onChange={(e) => setUid(e.target.value)} placeholder="e.g. dave"
        autoCapitalize="none" spellCheck={false} pattern="[A-Za-z0-9_\-]{1,100}" aria-describedby={error ? errorId : undefined} />
      <label htmlFor={nameId}>Name</label>
      <input id={nameId} className="agentry-web__input" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. Dave Lee" />
      <label className="agentry-web__check">
        <input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.target.checked)} /> Admin (configures agents and people)
      </label>
      {error ? (
        <p id={errorId} className="agentry-web__error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="agentry-web__row">
        <button type="submit" className="agentry-web__button" disabled={busy || !uid.trim() || !name.trim()}>
          Create sign-in link
        </button>
        <button type="button" className="agentry-web__button agentry-web__button--quiet" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
