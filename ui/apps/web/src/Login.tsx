import type { Chat } from "@agentry/chat-sdk";
import { Avatar } from "@agentry/ui-kit";
import { useId, useState, type FormEvent } from "react";
import type { AppConfig } from "./config";
import { rememberReturn } from "./drafts";
import { errorText, loginWithAuthKey, loginWithPassword, loginWithToken, signInErrorText, takeSignInError } from "./session";

interface FormProps {
  busy: boolean;
  /** The error's id while there is one (the fields are described by it). */
  describedBy: string | undefined;
  run(f: () => Promise<Chat.User>): Promise<void>;
}

export function Login({ config, onLogin, notice }: { config: AppConfig; onLogin(user: Chat.User): void; notice?: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(() => {
    const code = takeSignInError();
    return code === undefined ? "" : signInErrorText(code, config.sso?.name ?? "the identity provider");
  });
  const errorId = useId();
  const dev = config.devLogin;
  const run = async (f: () => Promise<Chat.User>) => {
    setBusy(true);
    setError("");
    try {
      onLogin(await f());
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };
  const form: FormProps = { busy, run, describedBy: error ? errorId : undefined };
  return (
    <main className="agentry-web__center agentry-web__login">
      <div className="agentry-web__card">
        <div className="agentry-web__login-head">
          <span className="agentry-web__brand agentry-web__brand--large" aria-hidden="true">
            A
          </span>
          <h1 className="agentry-web__title">Sign in to Agentry chat</h1>
        </div>
        {notice ? (
          <p className="agentry-web__notice" role="status">
            {notice}
          </p>
        ) : null}
        {config.sso ? <SSOLogin sso={config.sso} /> : dev ? <DevLogin dev={dev} {...form} /> : <PasswordLogin chatPath={config.chatPath} {...form} />}
        {error ? (
          <p id={errorId} className="agentry-web__error" role="alert">
            {error}
          </p>
        ) : null}
      </div>
    </main>
  );
}

/** Sign-in through the identity provider: the chat service sends the browser there and back. */
function SSOLogin({ sso }: { sso: NonNullable<AppConfig["sso"]> }) {
  return (
    <div className="agentry-web__inline-form">
      <p className="agentry-web__muted">Sign in with your organization's account.</p>
      <a className="agentry-web__button agentry-web__button--block" href={sso.url}
        onClick={() => rememberReturn(window.location.pathname + window.location.search)}>
        Sign in with {sso.name}
      </a>
    </div>
  );
}

/** Development login: a sample user, or any user id (a new one is created) with the Auth Key. */
function DevLogin({ dev, busy, describedBy, run }: FormProps & { dev: NonNullable<AppConfig["devLogin"]> }) {
  const [uid, setUid] = useState("");
  const uidId = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (uid.trim()) void run(() => loginWithAuthKey(uid.trim(), dev.authKey, { create: true }));
  };
  return (
    <>
      <p className="agentry-web__muted">
        Development login: pick a sample user, or type a user id: a new one creates that user. (This server has a development Auth Key.)
      </p>
      <ul className="agentry-web__user-picker" aria-label="Sample users">
        {dev.users.map((u) => (
          <li key={u.uid}>
            <button type="button" className="agentry-web__user-button" disabled={busy} onClick={() => void run(() => loginWithAuthKey(u.uid, dev.authKey))}>
              <Avatar className="agentry-web__avatar" name={u.name || u.uid} />
              <span className="agentry-web__user-button-text">
                {/* The card shows the name; a screen reader hears what the button does. */}
                <span className="agentry-web__user-name"><span className="agentry-web__sr-only">Sign in as </span>{u.name || u.uid}</span>
                <span className="agentry-web__muted">{pickerSubtitle(u)}</span>
              </span>
            </button>
          </li>
        ))}
      </ul>
      <form className="agentry-web__inline-form" onSubmit={submit}>
        <label htmlFor={uidId}>User id</label>
        <div className="agentry-web__row">
          <input id={uidId} className="agentry-web__input" value={uid} onChange={(e) => setUid(e.target.value)}
            autoComplete="username" placeholder="e.g. dave" aria-describedby={describedBy} />
          <button type="submit" className="agentry-web__button" disabled={busy || !uid.trim()}>
            Sign in
          </button>
        </div>
      </form>
    </>
  );
}

/** Production login without an identity provider: the user id and the password the person chose
 * from an administrator's invitation link; an auth token minted with the REST API key still
 * works, one click away. */
function PasswordLogin({ chatPath, busy, describedBy, run }: FormProps & { chatPath: string }) {
  const [uid, setUid] = useState("");
  const [password, setPassword] = useState("");
  const [withToken, setWithToken] = useState(false);
  const uidId = useId();
  const passwordId = useId();
  if (withToken) {
    return (
      <>
        <TokenLogin chatPath={chatPath} busy={busy} describedBy={describedBy} run={run} />
        <button type="button" className="agentry-web__link-button" onClick={() => setWithToken(false)}>
          Sign in with a password instead
        </button>
      </>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (uid.trim() && password) void run(() => loginWithPassword(uid.trim(), password, chatPath));
  };
  return (
    <>
      <form className="agentry-web__inline-form" onSubmit={submit}>
        <label htmlFor={uidId}>User id</label>
        <input id={uidId} className="agentry-web__input" value={uid} onChange={(e) => setUid(e.target.value)}
          autoComplete="username" autoCapitalize="none" spellCheck={false} aria-describedby={describedBy} />
        <label htmlFor={passwordId}>Password</label>
        <input id={passwordId} className="agentry-web__input" type="password" value={password} onChange={(e) => setPassword(e.target.value)}
          autoComplete="current-password" aria-describedby={describedBy} />
        <button type="submit" className="agentry-web__button agentry-web__button--block" disabled={busy || !uid.trim() || !password}>
          Sign in
        </button>
      </form>
      <p className="agentry-web__muted">New here? Open the invitation link an administrator sent you.</p>
      <button type="button" className="agentry-web__link-button" onClick={() => setWithToken(true)}>
        Sign in with an auth token instead
      </button>
    </>
  );
}

/** Production login: an auth token minted with the REST API key. */
function TokenLogin({ chatPath, busy, describedBy, run }: FormProps & { chatPath: string }) {
  const [token, setToken] = useState("");
  const tokenId = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (token.trim()) void run(() => loginWithToken(token.trim(), chatPath));
  };
  return (
    <form className="agentry-web__inline-form" onSubmit={submit}>
      <p className="agentry-web__muted">Paste the auth token an administrator created for you with the REST API key.</p>
      <label htmlFor={tokenId}>Auth token</label>
      <div className="agentry-web__row">
        <input id={tokenId} className="agentry-web__input" type="password" value={token} onChange={(e) => setToken(e.target.value)}
          autoComplete="current-password" aria-describedby={describedBy} />
        <button type="submit" className="agentry-web__button" disabled={busy || !token.trim()}>
          Sign in
        </button>
      </div>
    </form>
  );
}

/** A sample user's second line: the uid, and what an admin does (the uid alone when it says so). */
function pickerSubtitle(u: { uid: string; name: string; role?: string }): string {
  if (u.role !== "admin") return u.uid;
  return u.uid === "admin" ? "configures agents and people" : `${u.uid} · configures agents and people`;
}
