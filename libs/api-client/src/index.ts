export * from './resilient-fetch';
export * from './issued-token';
export * from './service-client';
export * from './api-error';
export type * as Exchange from './generated/exchange';
export type * as Agbot from './generated/agbot';
export type * as MaintenanceSession from './generated/maintenance-session';
export type * as DeploymentOrchestrator from './generated/deployment-orchestrator';
export type * as Notifier from './generated/notifier';
