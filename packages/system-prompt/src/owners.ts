import type { NamedEntries } from '@bridle/scope'
import type { Context } from 'cordis'

/** Who registered a named entry: the cordis plugin of the registering context, and its name. */
export interface EntryOwner {
  /** The plugin's name as cordis knows it (`''` for an anonymous plugin). */
  readonly name: string
  /** The plugin object or class itself, so an app can name it its own way (the CLI names its file). */
  readonly plugin: unknown
}

/** A duplicate-name error that says which plugin registered the name first. */
export interface DuplicateNameError extends Error {
  readonly registeredFirstBy?: EntryOwner
}

/** The plugin that owns `ctx` (cordis keeps it on the context's scope). */
export function ownerOf(ctx: Context): EntryOwner {
  const runtime = (ctx as unknown as { scope?: { runtime?: { plugin?: unknown; name?: unknown } } }).scope?.runtime
  return { name: typeof runtime?.name === 'string' ? runtime.name : '', plugin: runtime?.plugin }
}

/**
 * The owner of each name of each named table. Kept beside the tables (not in them), so an entry's value stays what
 * the caller registered; an owner goes when its insertion is undone.
 */
export class EntryOwners {
  readonly #tables = new WeakMap<object, Map<string, EntryOwner>>()

  /**
   * Inserts `value` under `name` into `table` as `owner`'s. A duplicate rethrows the table's own error (its message as
   * specified) carrying the first registrant as `registeredFirstBy`, so an app can say which plugin that was in its own
   * terms (the CLI names the plugin's file or bridle.yaml row).
   */
  insert<V>(table: NamedEntries<V>, name: string, value: V, owner: EntryOwner): () => void {
    let owners = this.#tables.get(table)
    let undo: () => void
    try {
      undo = table.insert(name, value)
    } catch (error) {
      const first = owners?.get(name)
      if (first !== undefined && error instanceof Error) {
        Object.defineProperty(error, 'registeredFirstBy', { value: first, configurable: true })
      }
      throw error
    }
    if (owners === undefined) this.#tables.set(table, (owners = new Map()))
    owners.set(name, owner)
    return () => {
      undo()
      if (!table.has(name)) owners.delete(name)
    }
  }

  /** The owner of `name` in `table`, if it is registered there. */
  get(table: object, name: string): EntryOwner | undefined {
    return this.#tables.get(table)?.get(name)
  }
}
