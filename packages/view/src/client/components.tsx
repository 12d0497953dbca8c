import type { ComponentChildren } from 'preact'
import type { VerifyState, VerifyView } from '../types.js'

/** ✓ / ✗ for one request's verification, with what did not match. */
export function Verified({ verify }: { verify: VerifyView }) {
  if (verify.ok)
    return (
      <span class="ok" title="rebuilt from the log, it matches its request/digest">
        ✓ verified
      </span>
    )
  const why = verify.error ?? `mismatched: ${verify.mismatched.join(', ')}`
  return (
    <span class="bad" title={why}>
      ✗ {why}
    </span>
  )
}

/** The verification of a whole session. */
export function SessionVerified({ state }: { state: VerifyState }) {
  if (state === 'ok') return <span class="ok">✓ all verify</span>
  if (state === 'failed') return <span class="bad">✗ verification failed</span>
  return <span class="muted">– no digests</span>
}

export function Failure({ title, error }: { title: string; error: string }) {
  return (
    <div class="failure" role="alert">
      <strong>{title}</strong>
      <pre>{error}</pre>
    </div>
  )
}

export function Loading() {
  return <p class="muted">Loading…</p>
}

/** A block of text from the log, shown as text (never as markup), folded when long. */
export function Text({ text, open }: { text: string; open?: boolean }) {
  if (text.length <= 600 && text.split('\n').length <= 12) return <pre class="text">{text}</pre>
  return (
    <details class="long" open={open}>
      <summary>
        {text.split('\n')[0]!.slice(0, 120)}… <span class="muted">({text.length.toLocaleString('en-US')} chars)</span>
      </summary>
      <pre class="text">{text}</pre>
    </details>
  )
}

export function Section({
  title,
  children,
  id,
}: {
  title: ComponentChildren
  children: ComponentChildren
  id?: string
}) {
  return (
    <section class="card" id={id}>
      <h2>{title}</h2>
      {children}
    </section>
  )
}
