import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';

const DEPLOYMENT_KEYS = Symbol('careen:deployment-config-keys');

/**
 * Marks a variable the service starts without, but with a feature off (placement, planning,
 * NATS users): every deployment form must set it, so that none leaves the feature silently off.
 */
export function DeploymentSetting(): PropertyDecorator {
  return (target, key) => {
    const keys: Set<string | symbol> = new Set(Reflect.getMetadata(DEPLOYMENT_KEYS, target) ?? []);
    keys.add(key);
    Reflect.defineMetadata(DEPLOYMENT_KEYS, keys, target);
  };
}

/**
 * The variables every deployment form of a service must set: those it cannot start without
 * (validated and not optional) and those marked {@link DeploymentSetting}.
 */
export function requiredSettings(configClass: new () => object): string[] {
  const validations = getMetadataStorage().getTargetValidationMetadatas(configClass, '', true, false);
  const optional = new Set(
    validations
      .filter((validation) => validation.type === 'conditionalValidation')
      .map((validation) => validation.propertyName),
  );
  const required = new Set(
    validations.map((validation) => validation.propertyName).filter((name) => !optional.has(name)),
  );
  const marked: Set<string | symbol> =
    Reflect.getMetadata(DEPLOYMENT_KEYS, configClass.prototype) ?? new Set();
  for (const key of marked) required.add(String(key));
  return [...required].sort();
}
