/**
 * Teardowns in flight, per root, shared process-wide (through `globalThis`, so a second copy of this module — an
 * HMR re-import — sees the same table). When the plugin restarts (a config change, a hot reload), the old
 * instance's final flush is still writing while the new instance adopts the same live sessions; adoption waits for
 * these teardowns so the two never write one file at the same time.
 */
const KEY = Symbol.for('bridle.session-jsonl.teardowns')

type Table = Map<string, Set<Promise<unknown>>>

function table(): Table {
  const holder = globalThis as { [KEY]?: Table }
  return (holder[KEY] ??= new Map())
}

/** Records `teardown` for `root` until it settles. */
export function trackTeardown(root: string, teardown: Promise<unknown>): void {
  const byRoot = table()
  let set = byRoot.get(root)
  if (set === undefined) byRoot.set(root, (set = new Set()))
  set.add(teardown)
  const forget = () => {
    set.delete(teardown)
    if (set.size === 0 && byRoot.get(root) === set) byRoot.delete(root)
  }
  teardown.then(forget, forget)
}

/** Resolves once every teardown of `root` in flight right now has settled (never rejects). */
export function teardownsSettled(root: string): Promise<void> {
  const set = table().get(root)
  if (set === undefined || set.size === 0) return Promise.resolve()
  return Promise.allSettled([...set]).then(() => undefined)
}
