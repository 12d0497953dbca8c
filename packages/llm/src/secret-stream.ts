/**
 * A text that arrives in pieces, filtered as it comes (docs/security.md#streams): the `SecretFilter`'s scan, resumed
 * at each piece from the tail it held back.
 */

/** What a stream needs of its `SecretFilter` (declared here, so the filter can make streams without an import circle). */
export interface PieceScanner {
  /** Redacts `text`; unless `final`, holds back a tail that could begin a secret (read it from `heldTail`). */
  scanPiece(text: string, final: boolean): string
  /** The tail the last `scanPiece` held back. */
  readonly heldTail: string
}

/**
 * Filters one text that arrives in pieces (a streamed answer block): `push` returns what may be shown now and holds
 * back only a tail that could be the start of a known secret, so a secret split over any number of pieces is caught
 * and everything else passes at once. `end` releases the tail. The pieces returned join to `filter.redact` of the
 * whole text.
 */
export class SecretStream {
  private held = ''

  constructor(private readonly filter: PieceScanner) {}

  /** The characters held back so far (0 when nothing is pending). */
  get pending(): number {
    return this.held.length
  }

  /** Filters the next piece; returns the text that may be emitted now (possibly `''`). */
  push(piece: string): string {
    const filter = this.filter
    const out = filter.scanPiece(this.held === '' ? piece : this.held + piece, false)
    this.held = filter.heldTail
    return out
  }

  /** The rest, filtered as the end of the text. */
  end(): string {
    const rest = this.held
    this.held = ''
    return rest === '' ? '' : this.filter.scanPiece(rest, true)
  }
}
