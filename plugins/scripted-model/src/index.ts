export {
  ScriptedModel,
  ConfigSchema,
  Config,
  type ScriptedModelConfig,
  type ScriptedModelConfigInput,
} from './plugin.js'
export {
  createScriptedAdapter,
  locate,
  scriptedSummary,
  type ScriptedAdapterOptions,
  type ScriptPosition,
} from './adapter.js'
export {
  ScriptedTurnSchema,
  ScriptedResponseSchema,
  ScriptedToolCallSchema,
  fillToolResult,
  type ScriptedTurn,
  type ScriptedResponse,
  type ScriptedToolCall,
} from './script.js'
