export { ViewSource, SessionNotFoundError } from './source.js'
export {
  createViewHandler,
  viewRoute,
  type ViewHandler,
  type ViewHandlerOptions,
  type ViewRoute,
} from './handler.js'
export { startViewServer, type ViewServer, type ViewServerOptions } from './server.js'
export { embeddedData, writeSessionHtml } from './export.js'
export { writeWhole, WriteWholeError } from './write-whole.js'
export { loadAssets, type ViewerAssets } from './assets.js'
export { StoreFollower, type StoreChange, type ChangeListener } from './follow.js'
export { describeCompaction } from './model/compaction.js'
export { changedSpan, changedSides, type ChangedSpan, type ChangedSpanOptions } from './model/changed-span.js'
export type {
  BlockView,
  DiffLine,
  EmbeddedData,
  MessageView,
  PrefixBreak,
  ReplacementRow,
  RequestDiffView,
  RequestRow,
  RequestView,
  SessionSummary,
  SessionView,
  StepRow,
  StoredRequestView,
  SystemSpan,
  TokenUsageView,
  ToolCallView,
  ToolView,
  TurnRow,
  VerifyState,
  VerifyView,
} from './types.js'
