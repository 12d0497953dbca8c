/**
 * A set of event seqs (non-negative safe integers) for surface membership, which is checked on every append and filled
 * once per event on every reload. Seqs are dense (a session's seqs run from 0), so a byte per seq in a growable array
 * beats a hash set in time and memory; a seq beyond the dense range (never produced by a session) goes to a `Set`.
 */
const DENSE_LIMIT = 1 << 26

export class SeqSet {
  private bytes = new Uint8Array(64)
  private sparse: Set<number> | undefined

  has(seq: number): boolean {
    if (seq >= 0 && seq < DENSE_LIMIT && Number.isInteger(seq)) return seq < this.bytes.length && this.bytes[seq] === 1
    return this.sparse?.has(seq) ?? false
  }

  add(seq: number): void {
    if (seq >= 0 && seq < DENSE_LIMIT && Number.isInteger(seq)) {
      if (seq >= this.bytes.length) {
        let length = this.bytes.length * 2
        while (length <= seq) length *= 2
        const grown = new Uint8Array(Math.min(length, DENSE_LIMIT))
        grown.set(this.bytes)
        this.bytes = grown
      }
      this.bytes[seq] = 1
      return
    }
    ;(this.sparse ??= new Set()).add(seq)
  }

  delete(seq: number): void {
    if (seq >= 0 && seq < DENSE_LIMIT && Number.isInteger(seq)) {
      if (seq < this.bytes.length) this.bytes[seq] = 0
      return
    }
    this.sparse?.delete(seq)
  }
}
