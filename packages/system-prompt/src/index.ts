export {
  IDENTITY_SECTION,
  IDENTITY_ORDER,
  HARNESS_SOURCE_SECTION,
  HARNESS_SOURCE_ORDER,
  harnessSourceText,
  PERSONA_SECTION,
  PERSONA_ORDER,
  TOOL_ORDER_REST,
  RUNTIME_CONTEXT_HEADER,
} from './constants.js'
export type {
  AssembleContext,
  TextSource,
  PromptSection,
  PromptContext,
  AssembledSection,
  AssembledContext,
  ToolProviderResult,
  ToolProvider,
  VariableProvider,
  PromptAssembly,
  Disposer,
} from './types.js'
export {
  renderPrompt,
  renderContextSections,
  joinContextSections,
  renderContextSnapshot,
} from './render.js'
export type { ContextSnapshotSection, ToolSchema } from '@bridle/llm'
export { renderPromptSpans, sectionOrigin, type PromptSpan, type RenderedPrompt, type SectionOrigin } from './spans.js'
export { validateToolOrder, orderTools } from './tool-order.js'
export {
  type SystemPromptConfig,
  type SystemPromptConfigInput,
  ConfigSchema,
  SystemPromptConfigSchema,
} from './config.js'
export { SystemPrompt } from './service.js'
export { SystemPrompt as default } from './service.js'
export type { EntryOwner, DuplicateNameError } from './owners.js'
export { INTERPOLATION_ERROR_CODES, type InterpolationErrorCode } from './interpolate.js'
