export { buildApp, type AppDeps } from './app.ts';
export { coordinatorErrors, type CoordinatorErrorCode } from './errors.ts';
export { ROLES, hashToken, newToken, parseTokenEntries, type AuthToken, type Role } from './auth-tokens.ts';
export { LOGIN_PATH, LOGOUT_PATH, SECURE_SESSION_COOKIE, SESSION_COOKIE, type AuthOptions } from './http/auth.ts';
export { SESSION_TTL_S, SessionStore } from './sessions.ts';
export { startCoordinator, type Coordinator, type CoordinatorConfig } from './runtime.ts';
export { SyncService, BATCH_COMMIT_IDENTIFIER } from './sync/service.ts';
export { SyncStore, type SyncStoreOptions } from './sync/store.ts';
export {
  SYNC_PHASES,
  isTerminal,
  transition,
  type SyncEvent,
  type SyncPhase,
  type SyncPlan,
  type SyncRecord,
  type SyncState,
} from './sync/state.ts';
export { DEFAULT_SCHEDULE_LIMITS, ScheduleService, type ScheduleLimits } from './schedule/service.ts';
export { type ScheduleDefinition } from './schedule/store.ts';
export { securityFromEnv, type SecurityConfig } from './server-config.ts';
export { isLoopback } from './loopback.ts';
