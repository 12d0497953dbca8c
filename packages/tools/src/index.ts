export { ToolRegistry } from './registry.js'
export { ToolRegistry as default } from './registry.js'
export {
  ToolArgsError,
  ToolNotFoundError,
  TOOL_ABORTED,
  TOOL_ABORTED_BEFORE_DISPATCH,
  thrownMessage,
} from './errors.js'
export { TOOL_NAME_PATTERN, isZodSchema } from './definition.js'
export { formatArgumentPath, parseRawArguments } from './arguments.js'
export type * from './types.js'
