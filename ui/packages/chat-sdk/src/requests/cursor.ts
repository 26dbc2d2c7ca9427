import type { WirePage } from "../wire";
import { Serial } from "./serial";

/** A request over cursor pages: fetchNext() answers the next page, [] at the end. Calls are
 * serialised, so two fetchNext() in flight never ask for the same page. */
export abstract class CursorRequest<T, W> {
  private cursor: string | undefined;
  private done = false;
  private readonly serial = new Serial();

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
    return this.serial.run(run);
  }

  /** Whether a page is left to fetch. */
  hasMore(): boolean { return !this.done; }
}
