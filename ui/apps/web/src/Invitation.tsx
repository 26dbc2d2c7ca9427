// The page an invitation link opens: greets the person it is for and lets them choose the
// password they sign in with from then on.
import type { Chat } from "@agentry/chat-sdk";
import { useEffect, useId, useState, type FormEvent } from "react";
import type { AppConfig } from "./config";
import { acceptInvitation, checkInvitation, errorText } from "./session";

type Check = { state: "checking" } | { state: "invalid"; error: string } | { state: "valid"; uid: string; name: string; expiresAt: number };

/** Who the code is for, asked once. */
function useInvitation(code: string, chatPath: string): Check {
  const [check, setCheck] = useState<Check>({ state: "checking" });
  useEffect(() => {
    let live = true;
    checkInvitation(code, chatPath).then(
      (inv) => live && setCheck({ state: "valid", ...inv }),
      (e: unknown) => live && setCheck({ state: "invalid", error: errorText(e) }),
    );
    return () => {
      live = false;
    };
  }, [code, chatPath]);
  return check;
}

export function InvitationPage({ code, config, onLogin, onCancel }: { code: string; config: AppConfig; onLogin(u: Chat.User): void; onCancel(): void }) {
  const check = useInvitation(code, config.chatPath);
  const [password, setPassword] = useState("");
  const [again, setAgain] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const passwordId = useId();
  const againId = useId();
  const errorId = useId();
  const mismatch = again !== "" && again !== password;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (password.length < 10 || mismatch) return;
    setBusy(true);
    setError("");
    try {
      onLogin(await acceptInvitation(code, password, config.chatPath));
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <main className="agentry-web__center agentry-web__login" aria-busy={check.state === "checking"}>
      <div className="agentry-web__card">
        <div className="agentry-web__login-head">
          <span className="agentry-web__brand agentry-web__brand--large" aria-hidden="true">
            A
          </span>
          <h1 className="agentry-web__title">{check.state === "valid" ? `Welcome, ${check.name}` : "Your invitation"}</h1>
        </div>
        {check.state === "checking" ? <p className="agentry-web__muted">Checking your invitation…</p> : null}
        {check.state === "invalid" ? (
          <p className="agentry-web__error" role="alert">
            {check.error}
          </p>
        ) : null}
        {check.state === "valid" ? (
          <form className="agentry-web__inline-form" onSubmit={(e) => void submit(e)}>
            <p className="agentry-web__muted">
              Choose a password for Agentry chat. From now on you sign in with your user id <strong>{check.uid}</strong> and this password.
            </p>
            <input type="text" hidden readOnly autoComplete="username" value={check.uid} />
            <label htmlFor={passwordId}>New password</label>
            <input id={passwordId} className="agentry-web__input" type="password" value={password} minLength={10} maxLength={72}
              onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" aria-describedby={error ? errorId : undefined} />
            <label htmlFor={againId}>Repeat it</label>
            <input id={againId} className="agentry-web__input" type="password" value={again} onChange={(e) => setAgain(e.target.value)}
              autoComplete="new-password" aria-invalid={mismatch || undefined} />
            <p className="agentry-web__muted" aria-live="polite">
              {mismatch ? "The two passwords differ." : password.length > 0 && password.length < 10 ? "At least 10 characters." : ""}
            </p>
            <button type="submit" className="agentry-web__button agentry-web__button--block"
              disabled={busy || password.length < 10 || again !== password}>
              Set password and sign in
            </button>
          </form>
        ) : null}
        {error ? (
          <p id={errorId} className="agentry-web__error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="button" className="agentry-web__link-button" onClick={onCancel}>
          Go to the sign-in page
        </button>
      </div>
    </main>
  );
}
