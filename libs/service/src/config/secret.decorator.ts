import 'reflect-metadata';

const SECRET_KEYS = Symbol('careen:secret-config-keys');

/** Marks a config variable whose value must never be printed. */
export function Secret(): PropertyDecorator {
  return (target, key) => {
    const keys: Set<string | symbol> = Reflect.getMetadata(SECRET_KEYS, target) ?? new Set();
    keys.add(key);
    Reflect.defineMetadata(SECRET_KEYS, keys, target);
  };
}

export function isSecret(target: object, key: string): boolean {
  const keys: Set<string | symbol> | undefined = Reflect.getMetadata(SECRET_KEYS, target);
  return keys?.has(key) ?? false;
}
