/** Name of the built-in identity section registered by the service (`includeHarnessIdentity`). */
export const IDENTITY_SECTION = 'harness:identity'
/** Order of the identity section: renders before the persona and most plugin sections. */
export const IDENTITY_ORDER = -100
/** Text of the built-in identity section. */
export const IDENTITY_TEXT = 'You are an AI agent powered by Bridle.'

/** Name of the built-in persona section whose text is `config.persona` (a template). */
export const PERSONA_SECTION = 'deployment:persona'
/** Order of the persona section. */
export const PERSONA_ORDER = 0

/** The `toolOrder` rest entry: the place where every unlisted tool is inserted in canonical order. */
export const TOOL_ORDER_REST = '<unlisted-tools>'

/** First paragraph of every non-empty runtime-context snapshot (see `joinContextSections`). */
export const RUNTIME_CONTEXT_HEADER =
  'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.'
