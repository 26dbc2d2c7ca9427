// The web app: loads /app-config.json, logs in (development user picker or an auth token),
// then shows the chat (groups, people, agents, threads) and, for admins, the agent admin page.
import { Chat } from "@agentry/chat-sdk";
import { lazy, Suspense, useCallback, useEffect, useState } from "react";
// The admin pages load when an admin opens them: most people never do, and the app's first
// load stays one small-enough chunk.
const AdminPage = lazy(() => import("./admin/AdminPage").then((m) => ({ default: m.AdminPage })));
const PeoplePage = lazy(() => import("./admin/PeoplePage").then((m) => ({ default: m.PeoplePage })));
import { ChatPage } from "./chat/ChatPage";
import { loadConfig, type AppConfig } from "./config";
import { InvitationPage } from "./Invitation";
import { Login } from "./Login";
import { rememberReturn, takeReturn } from "./drafts";
import { completeSignIn, errorText, initChat, logout, resume, sessionEnded, takeInvitationCode } from "./session";

type Route = "chat" | "admin" | "people";

function routeOf(path: string): Route {
  const p = path.replace(/\/+$/, "");
  return p === "/admin" ? "admin" : p === "/people" ? "people" : "chat";
}

type Boot = { state: "loading" } | { state: "failed"; error: string } | { state: "ready"; config: AppConfig };

/** Loads the configuration, sets the SDK up and resumes the remembered session; retry() boots
 * once more (the remembered session is kept). */
function useBoot() {
  const [boot, setBoot] = useState<Boot>({ state: "loading" });
  const [user, setUser] = useState<Chat.User | undefined>();
  const [resumed, setResumed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    (async () => {
      try {
        const config = await loadConfig();
        await initChat(config);
        const signedIn = await completeSignIn(config);
        // Back from the provider: to the page the session ended on, or the deep link followed.
        const back = signedIn ? takeReturn() : undefined;
        if (back) window.history.replaceState(null, "", back);
        const u = signedIn ?? (await resume());
        if (!live) return;
        setUser(u);
        setBoot({ state: "ready", config });
      } catch (e) {
        if (live) setBoot({ state: "failed", error: errorText(e) });
      } finally {
        if (live) setResumed(true);
      }
    })();
    return () => {
      live = false;
    };
  }, [attempt]);
  const retry = useCallback(() => {
    setResumed(false);
    setBoot({ state: "loading" });
    setAttempt((n) => n + 1);
  }, []);
  return { boot: resumed ? boot : ({ state: "loading" } as Boot), user, setUser, retry };
}

/** The page the path names, following back/forward; navigate() pushes it. */
function useRoute() {
  const [route, setRoute] = useState<Route>(() => routeOf(window.location.pathname));
  useEffect(() => {
    const onPop = () => setRoute(routeOf(window.location.pathname));
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);
  const navigate = useCallback((r: Route) => {
    // The chat keeps its own paths (a conversation, a thread): "Chat" from there stays.
    if (r !== routeOf(window.location.pathname)) window.history.pushState(null, "", r === "chat" ? "/" : `/${r}`);
    setRoute(r);
  }, []);
  return [route, navigate] as const;
}

/** The service ended the session under the page (the socket closed with 4001: expired, revoked,
 * the user deactivated): back to the sign-in page with a sentence; the page and the drafts are
 * kept for the next sign-in. */
function useSessionEnd(signedIn: boolean, end: (notice: string) => void) {
  useEffect(() => {
    if (!signedIn) return;
    const id = `agentry-web-session-${Math.random().toString(36).slice(2)}`;
    Chat.addConnectionListener(id, new Chat.ConnectionListener({
      onConnectionError: (e) => {
        if (e.code !== "ERR_AUTH_TOKEN_INVALID") return;
        rememberReturn(window.location.pathname + window.location.search);
        sessionEnded();
        end("Your session has ended. Sign in again to go on; what you were typing is kept.");
      },
    }));
    return () => Chat.removeConnectionListener(id);
  }, [signedIn, end]);
}

export function App() {
  const { boot, user, setUser, retry } = useBoot();
  const [route, navigate] = useRoute();
  const [notice, setNotice] = useState("");
  // An invitation link (/#invite=<code>): its page comes first, even over a signed-in session.
  const [invite, setInvite] = useState(takeInvitationCode);
  const ended = useCallback((n: string) => {
    setNotice(n);
    setUser(undefined);
  }, [setUser]);
  useSessionEnd(user !== undefined, ended);
  const onLogin = useCallback((u: Chat.User) => {
    const back = takeReturn();
    if (back) {
      window.history.replaceState(null, "", back);
      window.dispatchEvent(new PopStateEvent("popstate"));
    }
    setNotice("");
    setInvite(undefined);
    setUser(u);
  }, [setUser]);
  const logoutUrl = boot.state === "ready" ? boot.config.sso?.logoutUrl : undefined;
  const onLogout = useCallback(async () => {
    await logout();
    // Signed in through the provider: sign out there too (it sends the browser back to /).
    if (logoutUrl) {
      window.location.assign(logoutUrl);
      return;
    }
    setUser(undefined);
    // The next user starts from nothing open, not from the last user's conversation.
    window.history.replaceState(null, "", "/");
    navigate("chat");
  }, [setUser, navigate, logoutUrl]);
  useEffect(() => {
    // The chat page titles itself after the open conversation.
    if (!user) document.title = "Sign in · Agentry chat";
    else if (route === "admin") document.title = "Agents · Agentry chat";
    else if (route === "people") document.title = "People · Agentry chat";
  }, [user, route]);

  let body;
  if (boot.state === "loading") {
    body = (
      <main className="agentry-web__center" aria-busy="true">
        <p className="agentry-web__muted">Loading…</p>
      </main>
    );
  } else if (boot.state === "failed") {
    body = (
      <main className="agentry-web__center">
        <div className="agentry-web__card" role="alert">
          <h1 className="agentry-web__title">The chat service cannot be reached</h1>
          <p>{boot.error}</p>
          <button type="button" className="agentry-web__button" onClick={retry}>
            Try again
          </button>
        </div>
      </main>
    );
  } else if (invite !== undefined) {
    body = <InvitationPage code={invite} config={boot.config} onLogin={onLogin} onCancel={() => setInvite(undefined)} />;
  } else if (!user) {
    body = <Login config={boot.config} onLogin={onLogin} notice={notice} />;
  } else {
    body = <Shell user={user} route={route} navigate={navigate} onLogout={onLogout} sso={boot.config.sso !== undefined} />;
  }
  return <div className="chat agentry-web">{body}</div>;
}

function Shell({ user, route, navigate, onLogout, sso }: { user: Chat.User; route: Route; navigate(r: Route): void; onLogout(): Promise<void>; sso: boolean }) {
  const isAdmin = user.getRole() === "admin";
  return (
    <div className="agentry-web__shell">
      <header className="agentry-web__topbar">
        <span className="agentry-web__brand" aria-hidden="true">
          A
        </span>
        <span className="agentry-web__product">Agentry chat</span>
        <nav className="agentry-web__tabs" aria-label="Pages">
          <a href="/" className="agentry-web__tab" aria-current={route === "chat" ? "page" : undefined}
            onClick={(e) => { e.preventDefault(); navigate("chat"); }}>
            Chat
          </a>
          {isAdmin ? (
            <a href="/admin" className="agentry-web__tab" aria-current={route === "admin" ? "page" : undefined}
              onClick={(e) => { e.preventDefault(); navigate("admin"); }}>
              Agents
            </a>
          ) : null}
          {isAdmin ? (
            <a href="/people" className="agentry-web__tab" aria-current={route === "people" ? "page" : undefined}
              onClick={(e) => { e.preventDefault(); navigate("people"); }}>
              People
            </a>
          ) : null}
        </nav>
        <span className="agentry-web__me">
          Signed in as <strong>{user.getName() || user.getUid()}</strong>
          {isAdmin ? <span className="agentry-web__badge">admin</span> : null}
        </span>
        <button type="button" className="agentry-web__button agentry-web__button--quiet" onClick={() => void onLogout()}>
          Log out
        </button>
      </header>
      {route === "admin" && isAdmin ? (
        <Suspense fallback={<p className="agentry-web__muted" role="status">Loading…</p>}><AdminPage /></Suspense>
      ) : route === "people" && isAdmin ? (
        <Suspense fallback={<p className="agentry-web__muted" role="status">Loading…</p>}><PeoplePage me={user} invitations={!sso} /></Suspense>
      ) : (
        <ChatPage me={user} />
      )}
    </div>
  );
}
