import { ChatException, SDK_ERROR } from "../exception";
import { userToWire } from "../mapping";
import type { User } from "../models/user";
import type { Session } from "../session";
import type { WireUser } from "../wire";

const enc = encodeURIComponent;

/** Creates a user with the development Auth Key (production creates users with the REST API key, server side). */
export async function createUser(s: Session, user: User, authKey: string): Promise<User> {
  if (!authKey) throw new ChatException(SDK_ERROR.VALIDATION, "createUser needs the Auth Key");
  const w = await s.http.json<WireUser>("POST", "/users", { auth: { headers: { authkey: authKey } }, body: userToWire(user) });
  return s.directory.putWireUser(w);
}

export async function getUser(s: Session, uid: string): Promise<User> {
  const w = await s.http.json<WireUser>("GET", `/users/${enc(uid)}`);
  return s.directory.putWireUser(w);
}

/** Deactivates a person (admins): their sessions and sockets end at once and they cannot sign in
 * until reactivated; or reactivates them. */
export async function setUserDeactivated(s: Session, uid: string, deactivated: boolean): Promise<User> {
  const w = await s.http.json<WireUser>("POST", `/users/${enc(uid)}/${deactivated ? "deactivate" : "reactivate"}`);
  return s.directory.putWireUser(w);
}
