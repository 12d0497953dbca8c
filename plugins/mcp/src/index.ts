export { Mcp, McpServer } from './plugin.js'
export { Mcp as default } from './plugin.js'
export {
  Config,
  ConfigSchema,
  HttpServerSchema,
  NamedServerSchema,
  parseServerConfig,
  PLUGIN_NAME,
  SERVER_NAME,
  ServerNameSchema,
  ServerSchema,
  StdioServerSchema,
  type HttpServerConfig,
  type McpConfig,
  type NamedServerConfig,
  type ServerConfig,
  type StdioServerConfig,
} from './config.js'
export type { McpServerState, McpServerStatus, McpToolsUpdate } from './connection.js'
export { McpToolError, type McpToolErrorCode } from './errors.js'
export { bridleToolName, TOOL_NAME } from './names.js'
export { mapCallResult, type ImageMode, type McpCallResult, type McpContent, type McpResultMeta } from './result.js'
export { toListedTools, type ListedTool, type SkippedTool } from './listing.js'
export { backoffDelay, type ReconnectPolicy } from './backoff.js'
export { CLIENT_INFO } from './session.js'
