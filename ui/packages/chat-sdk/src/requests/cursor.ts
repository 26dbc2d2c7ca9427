import { toException } from "../exception";
import type { WirePage } from "../wire";

/** A request over cursor pages: fetchNext() answers the next page, [] at the end. Calls are
 * serialised, so two fetchNext() in flight never ask for the same page. */
export abstract class CursorRequest<T, W> {
  private cursor: string | undefined;
  private done = false;
  private chain: Promise<unknown> = Promise.resolve();

  protected abstract load(cursor: string | undefined): Promise<WirePage<W>>;
  protected abstract map(items: readonly W[]): Promise<T[]>;

  fetchNext(): Promise<T[]> {
    const run = async (): Promise<T[]> => {
      if (this.done) return [];
      const page = await this.load(this.cursor);
      const items = page.items ?? [];
      if (!page.next || items.length === 0) this.done = true;
      else this.cursor = page.next;
      return this.map(items);
    };
    // Whatever fails reaches the caller as a ChatException, as every other call of the SDK does.
    const p = this.chain.then(run, run).catch((err: unknown) => {
      throw toException(err);
    });
    this.chain = p.catch(() => undefined);
    return p;
  }

  /** Whether a page is left to fetch. */
  hasMore(): boolean {
    return !this.done;
  }
}
