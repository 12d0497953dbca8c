export { type ScopeKey, isScopeKey } from './key.js'
export { type ScopeBinding, bindScopeParent, scopeParentOf, scopeChainOf } from './parent.js'
export { scopeOf } from './tag.js'
export { type Scope, type CreateScopeOptions, createScope } from './scope.js'
export { type Scoped, scopeTarget, isScopeCarrier, carrierKeyOf } from './carrier.js'
export { type Awaitable, type WaterfallArgs, type WaterfallResult, runWaterfall, waterfall } from './waterfall.js'
export { admittedHooks, lifecycleOf, onUntraced, rawService } from './lifecycle.js'
export { NamedEntries } from './named-entries.js'
export { AnonymousEntries } from './anonymous-entries.js'
export { type ScopeLayer, type EffectOptions, ScopedLayers } from './scoped-layers.js'
export { ownedEffect } from './owned-effect.js'
export { HomeService } from './home-service.js'
export { shutdown } from './shutdown.js'
export {
  type ContainOptions,
  type EventArgs,
  type FailureReport,
  type Listener,
  type ListenerFailure,
  admittedListeners,
  dispatchContained,
  emitContained,
  serialDispatch,
  settleAll,
  warnContained,
} from './contained.js'
