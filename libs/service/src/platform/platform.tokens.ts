export const SERVICE_NAME = Symbol('careen:service-name');
export const SERVICE_CONFIG = Symbol('careen:service-config');
export const BUS = Symbol('careen:bus');
export const SERVICE_LOGGER = Symbol('careen:service-logger');
