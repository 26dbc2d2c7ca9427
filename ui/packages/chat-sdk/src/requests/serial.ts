import { ChatException } from "../exception";

/** One request's fetches, one after another: two calls in flight never ask for the same page.
 * Whatever fails reaches its caller as a ChatException, as every other call of the SDK does,
 * and the next fetch still runs. */
export class Serial {
  private chain: Promise<unknown> = Promise.resolve();

  run<T>(fetch: () => Promise<T>): Promise<T> {
    const p = this.chain.then(fetch, fetch).catch((err: unknown) => {
      throw ChatException.from(err);
    });
    this.chain = p.catch(() => undefined);
    return p;
  }
}
