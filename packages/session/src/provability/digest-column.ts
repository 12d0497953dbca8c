/**
 * A growable column of SHA-256 digests stored as 32 raw bytes each, read and written as lowercase hex. The request
 * digester keeps two values per history message (its digest and the chain after it); as hex strings in arrays and a
 * weak map they cost about 200 bytes a message, most of what a long session's digest state weighed.
 */
const DIGEST_BYTES = 32

export class DigestColumn {
  private bytes = Buffer.alloc(DIGEST_BYTES * 16)
  /** How many digests the column holds. */
  length = 0

  /** Appends one digest given as 64 lowercase hex characters. */
  push(hex: string): void {
    if ((this.length + 1) * DIGEST_BYTES > this.bytes.length) {
      const grown = Buffer.alloc(this.bytes.length * 2)
      this.bytes.copy(grown, 0, 0, this.length * DIGEST_BYTES)
      this.bytes = grown
    }
    this.bytes.write(hex, this.length * DIGEST_BYTES, DIGEST_BYTES, 'hex')
    this.length++
  }

  /** The digest at `index` as lowercase hex. */
  at(index: number): string {
    const start = index * DIGEST_BYTES
    return this.bytes.toString('hex', start, start + DIGEST_BYTES)
  }

  /** Keeps the first `length` digests; gives back the space when most of it is unused (after a compaction). */
  truncate(length: number): void {
    this.length = Math.min(length, this.length)
    if (this.bytes.length > DIGEST_BYTES * 64 && this.length * DIGEST_BYTES * 4 < this.bytes.length) {
      const shrunk = Buffer.alloc(Math.max(DIGEST_BYTES * 16, this.length * DIGEST_BYTES * 2))
      this.bytes.copy(shrunk, 0, 0, this.length * DIGEST_BYTES)
      this.bytes = shrunk
    }
  }
}
