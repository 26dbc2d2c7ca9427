// The people of this chat (admins): search, and deactivate or reactivate someone (their
// sessions and sockets end at once). Roles come from the identity provider's admin groups or
// the REST API key, not from here.
import "./admin.css";
import { Chat } from "@agentry/chat-sdk";
import { Avatar } from "@agentry/ui-kit";
import { useCallback, useEffect, useId, useState } from "react";
import { errorText } from "../session";

/** People matching query (up to 100), reloaded as it changes; put() replaces one after a change. */
function usePeople(query: string) {
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
  }, [query]);
  const put = useCallback((u: Chat.User) => setPeople((ps) => ps.map((p) => (p.getUid() === u.getUid() ? u : p))), []);
  return { people, ...state, put };
}

export function PeoplePage({ me }: { me: Chat.User }) {
  const [query, setQuery] = useState("");
  const [error, setError] = useState("");
  const { people, loading, error: loadError, put } = usePeople(query);
  const searchId = useId();
  const shown = error || loadError;
  return (
    <main className="agentry-web__main agentry-web__people" aria-label="People" aria-busy={loading}>
      <h1 className="agentry-web__title">People</h1>
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
          <Person key={p.getUid()} person={p} self={p.getUid() === me.getUid()} onChanged={put} onError={setError} />
        ))}
      </ul>
    </main>
  );
}

function Person({ person, self, onChanged, onError }: { person: Chat.User; self: boolean; onChanged(u: Chat.User): void; onError(e: string): void }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const name = person.getName();
  const set = async (deactivated: boolean) => {
    setBusy(true);
    onError("");
    try {
      onChanged(await Chat.setUserDeactivated(person.getUid(), deactivated));
      setConfirming(false);
    } catch (e) {
      onError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <li className="agentry-web__person" aria-label={name}>
      <Avatar className="agentry-web__avatar" name={name} image={person.getAvatar()} />
      <span className="agentry-web__person-text">
        <span className="agentry-web__user-name">{name}</span>
        <span className="agentry-web__muted">
          {person.getUid()}
          {person.getRole() === "admin" ? " · admin" : ""}
          {person.isDeactivated() ? " · deactivated" : ""}
        </span>
      </span>
      {self ? null : person.isDeactivated() ? (
        <button type="button" className="agentry-web__button agentry-web__button--secondary" disabled={busy} onClick={() => void set(false)}>
          Reactivate
        </button>
      ) : confirming ? (
        <span className="agentry-web__person-confirm" role="group" aria-label={`Deactivate ${name}?`}>
          <span>Their sessions end now.</span>
          <button type="button" className="agentry-web__button agentry-web__button--danger" disabled={busy} onClick={() => void set(true)}>
            Deactivate
          </button>
          <button type="button" className="agentry-web__button agentry-web__button--quiet" disabled={busy} onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <button type="button" className="agentry-web__button agentry-web__button--quiet" onClick={() => setConfirming(true)}>
          Deactivate…
        </button>
      )}
    </li>
  );
}
