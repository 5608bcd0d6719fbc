/**
 * The names the demo of `npm start` gives what it creates, for whoever names them (the ready
 * summary, the services' settings) without loading the demo fleet's code, which takes seconds.
 */
export const DEMO_ORG = 'demo';
export const DEMO_ADMIN = 'admin';
export const DEMO_AGENT_VERSION = '1.0.0';
export const DEMO_NODE_PREFIX = 'demo';
export const DEMO_PROJECT = 'shop';
export const DEMO_DEPLOYMENT_POLICY = 'web';
