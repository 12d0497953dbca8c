/** Name of the built-in identity section registered by the service (`includeHarnessIdentity`). */
export const IDENTITY_SECTION = 'harness:identity'
/** Order of the identity section: renders before the persona and most plugin sections. */
export const IDENTITY_ORDER = -100
/** Text of the built-in identity section. */
export const IDENTITY_TEXT = 'You are an AI agent powered by Bridle.'

/** Name of the optional section that says where the harness's own source checkout is (`harnessSource`). */
export const HARNESS_SOURCE_SECTION = 'harness:source'
/** Order of `harness:source`: right after the identity, before the persona. */
export const HARNESS_SOURCE_ORDER = -90

/**
 * Text of `harness:source`. A path is a hint of where something is, not a permission to use it, and the checkout
 * must never be mistaken for the task's workspace or working directory.
 */
export function harnessSourceText(path: string): string {
  return (
    `The source checkout of the harness that runs you (Bridle) is at ${path}. ` +
    'It is not the task workspace and not your current working directory: do not read or change it unless ' +
    "the task is about the harness itself, and never infer the task's working directory from it. " +
    'Confirm the current working directory (the runtime context states it; run `pwd` where a shell is available) ' +
    'before relying on relative paths.'
  )
}

/** Name of the built-in persona section whose text is `config.persona` (a template). */
export const PERSONA_SECTION = 'deployment:persona'
/** Order of the persona section. */
export const PERSONA_ORDER = 0

/** The `toolOrder` rest entry: the place where every unlisted tool is inserted in canonical order. */
export const TOOL_ORDER_REST = '<unlisted-tools>'

/** First paragraph of every non-empty runtime-context snapshot (see `joinContextSections`). */
export const RUNTIME_CONTEXT_HEADER =
  'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.'
