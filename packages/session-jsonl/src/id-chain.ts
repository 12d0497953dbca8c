/**
 * One promise chain per session id (docs/persistence.md#one-chain-per-session). Every storage operation of an id —
 * publication, appends, repair, reads-for-repair — runs on its chain, so no two of them interleave. A failed operation
 * does not break the chain for the next one.
 */
export class IdChain {
  private readonly tails = new Map<string, Promise<unknown>>()

  /** Runs `op` after every operation queued for `id` so far; resolves or rejects with `op`'s outcome. */
  run<T>(id: string, op: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(id) ?? Promise.resolve()
    const result = previous.then(op, op)
    const tail = result.then(
      () => undefined,
      () => undefined,
    )
    this.tails.set(id, tail)
    void tail.then(() => {
      if (this.tails.get(id) === tail) this.tails.delete(id)
    })
    return result
  }

  /** Resolves once every operation queued so far (for any id) has settled. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()])
  }
}
