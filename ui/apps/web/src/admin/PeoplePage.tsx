// The people of this chat (admins): search, roles, deactivate or reactivate someone (their
// sessions and sockets end at once) and, on a chat without an identity provider, invitation
// links with which people set up their own sign-in. Where the provider's groups decide roles,
// the service refuses a change here with a sentence, shown as the page's error.
import "./admin.css";
import { Chat } from "@agentry/chat-sdk";
import { Avatar } from "@agentry/ui-kit";
import { useCallback, useEffect, useId, useState } from "react";
import { errorText } from "../session";
import { InvitationLink, InviteForm, madeLink, type MadeLink } from "./Invite";

/** People matching query (up to 100), reloaded as it (or reload) changes; put() replaces one after a change. */
function usePeople(query: string, reload: number) {
  const [people, setPeople] = useState<Chat.User[]>([]);
  const [state, setState] = useState<{ loading: boolean; error: string }>({ loading: true, error: "" });
  useEffect(() => {
    let live = true;
    setState({ loading: true, error: "" });
    const req = new Chat.UsersRequestBuilder().setKind("user").setSearchKeyword(query.trim()).setLimit(100).build();
    req.fetchNext().then(
      (page) => live && (setPeople(page), setState({ loading: false, error: "" })),
      (e: unknown) => live && setState({ loading: false, error: errorText(e) }),
    );
    return () => {
      live = false;
    };
  }, [query, reload]);
  const put = useCallback((u: Chat.User) => setPeople((ps) => ps.map((p) => (p.getUid() === u.getUid() ? u : p))), []);
  return { people, ...state, put };
}

export function PeoplePage({ me, invitations }: { me: Chat.User; invitations: boolean }) {
  const [query, setQuery] = useState("");
  const [error, setError] = useState("");
  const [inviting, setInviting] = useState(false);
  const [made, setMade] = useState<MadeLink | undefined>();
  const [added, setAdded] = useState(0);
  const { people, loading, error: loadError, put } = usePeople(query, added);
  const searchId = useId();
  const shown = error || loadError;
  const onMade = useCallback((m: MadeLink) => {
    setMade(m);
    setInviting(false);
    setAdded((n) => n + 1); // a new person joins the list
  }, []);
  return (
    <main className="agentry-web__main agentry-web__people" aria-label="People" aria-busy={loading}>
      <div className="agentry-web__people-head">
        <h1 className="agentry-web__title">People</h1>
        {invitations && !inviting ? (
          <button type="button" className="agentry-web__button" onClick={() => { setInviting(true); setMade(undefined); }}>
            Invite someone
          </button>
        ) : null}
      </div>
      {inviting ? <InviteForm onMade={onMade} onCancel={() => setInviting(false)} /> : null}
      {made ? <InvitationLink made={made} onDismiss={() => setMade(undefined)} /> : null}
      <label htmlFor={searchId} className="agentry-web__sr-only">Search people</label>
      <input id={searchId} type="search" className="agentry-web__input" placeholder="Search people" value={query} onChange={(e) => setQuery(e.target.value)} />
      {shown ? (
        <p className="agentry-web__error" role="alert">
          {shown}
        </p>
      ) : null}
      {!loading && people.length === 0 && !shown ? <p className="agentry-web__muted">Nobody matches.</p> : null}
      <ul className="agentry-web__people-list" aria-label="People">
        {people.map((p) => (
          <Person key={p.getUid()} person={p} self={p.getUid() === me.getUid()} invitations={invitations} onChanged={put} onError={setError} onLink={setMade} />
        ))}
      </ul>
    </main>
  );
}

interface PersonProps {
  person: Chat.User;
  self: boolean;
  invitations: boolean;
  onChanged(u: Chat.User): void;
  onError(e: string): void;
  onLink(m: MadeLink): void;
}

function Person({ person, self, invitations, onChanged, onError, onLink }: PersonProps) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const name = person.getName();
  const admin = person.getRole() === "admin";
  const act = async (f: () => Promise<void>) => {
    setBusy(true);
    onError("");
    try {
      await f();
    } catch (e) {
      onError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const setDeactivated = (deactivated: boolean) => act(async () => {
    onChanged(await Chat.setUserDeactivated(person.getUid(), deactivated));
    setConfirming(false);
  });
  const toggleAdmin = () => act(async () => onChanged(await Chat.setUserRole(person.getUid(), admin ? "" : "admin")));
  const link = () => act(async () => onLink(madeLink(await Chat.createInvitation({ uid: person.getUid() }))));
  let actions = null;
  if (person.isDeactivated()) {
    actions = (
      <button type="button" className="agentry-web__button agentry-web__button--secondary" disabled={busy} onClick={() => void setDeactivated(false)}>
        Reactivate
      </button>
    );
  } else if (confirming) {
    actions = (
      <span className="agentry-web__person-confirm" role="group" aria-label={`Deactivate ${name}?`}>
        <span>Their sessions end now.</span>
        <button type="button" className="agentry-web__button agentry-web__button--danger" disabled={busy} onClick={() => void setDeactivated(true)}>
          Deactivate
        </button>
        <button type="button" className="agentry-web__button agentry-web__button--quiet" disabled={busy} onClick={() => setConfirming(false)}>
          Cancel
        </button>
      </span>
    );
  } else if (!self) {
    actions = (
      <span className="agentry-web__person-actions">
        <button type="button" className="agentry-web__button agentry-web__button--quiet" disabled={busy} onClick={() => void toggleAdmin()}>
          {admin ? "Remove admin" : "Make admin"}
        </button>
        {invitations ? (
          <button type="button" className="agentry-web__button agentry-web__button--quiet" disabled={busy} onClick={() => void link()}>
            Sign-in link
          </button>
        ) : null}
        <button type="button" className="agentry-web__button agentry-web__button--quiet" onClick={() => setConfirming(true)}>
          Deactivate…
        </button>
      </span>
    );
  }
  return (
    <li className="agentry-web__person" aria-label={name}>
      <Avatar className="agentry-web__avatar" name={name} image={person.getAvatar()} />
      <span className="agentry-web__person-text">
        <span className="agentry-web__user-name">{name}</span>
        <span className="agentry-web__muted">
          {person.getUid()}
          {admin ? " · admin" : ""}
          {person.isDeactivated() ? " · deactivated" : ""}
        </span>
      </span>
      {actions}
    </li>
  );
}
