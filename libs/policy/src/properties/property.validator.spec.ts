import {
  builtinNodeProperties,
  BUILTIN_PROPERTY_TYPES,
  CAREEN_AGENT_VERSION,
} from './builtin-properties.constants';
import { indexProperties } from './property-index';
import { inferPropertyType } from './property-values';
import { validateProperties } from './property.validator';

describe('inferPropertyType', () => {
  it.each<[unknown, string | undefined]>([
    [4, 'int'],
    [-3, 'int'],
    [4.5, 'float'],
    [true, 'boolean'],
    ['1.2.3', 'string'],
    ['amd64', 'string'],
    [['a', 'b'], 'list of strings'],
    [['a', 1], undefined],
    [null, undefined],
    [{ a: 1 }, undefined],
  ])('infers %j as %s', (value, type) => {
    expect(inferPropertyType(value)).toBe(type);
  });
});

describe('validateProperties', () => {
  it('accepts every type, declared or inferred', () => {
    expect(
      validateProperties([
        { name: 'stringProperty', value: 'string-value' },
        { name: 'intProperty', value: 10 },
        { name: 'booleanProperty', value: true },
        { name: 'floatProperty', value: 3.4 },
        { name: 'versionProperty', type: 'version', value: '1.2.7' },
        { name: 'losProperty', type: 'list of strings', value: 'value1,value2' },
        { name: 'losArray', type: 'list of strings', value: ['a', 'b'] },
        { name: 'emptyList', type: 'list of strings', value: '' },
        { name: 'wholeFloat', type: 'float', value: 3 },
        { name: 'shortVersion', type: 'version', value: '1' },
        { name: 'my.org/flag_2-x', type: 'string', value: '' },
      ]),
    ).toEqual([]);
  });

  it('reports every problem with its index and name', () => {
    expect(
      validateProperties([
        { name: 'ok', value: 1 },
        { name: 'colour', type: 'color', value: 'red' },
        { name: 'cpus', type: 'int', value: 2.5 },
        { name: 'memory', type: 'int', value: '2048' },
        { name: 'ratio', type: 'float', value: Number.NaN },
        { name: 'gpu', type: 'boolean', value: 'yes' },
        { name: 'v', type: 'version', value: '1.2.beta' },
        { name: 'v2', type: 'version', value: 1.2 },
        { name: 'tags', type: 'list of strings', value: 'a,,b' },
        { name: 'tags2', type: 'list of strings', value: ['a', 3] },
        { name: 'ok', value: 2 },
        { name: 'nested', value: { a: 1 } },
        { name: 'nothing' },
        { name: 'has space', value: 1 },
        { name: 'AND', value: 1 },
        { value: 1 },
        'not a property',
      ]),
    ).toEqual([
      expect.objectContaining({ index: 1, name: 'colour', code: 'unknown-type' }),
      expect.objectContaining({ index: 2, name: 'cpus', code: 'type-mismatch' }),
      expect.objectContaining({ index: 3, name: 'memory', code: 'type-mismatch' }),
      expect.objectContaining({ index: 4, name: 'ratio', code: 'type-mismatch' }),
      expect.objectContaining({ index: 5, name: 'gpu', code: 'type-mismatch' }),
      expect.objectContaining({ index: 6, name: 'v', code: 'type-mismatch' }),
      expect.objectContaining({ index: 7, name: 'v2', code: 'type-mismatch' }),
      expect.objectContaining({ index: 8, name: 'tags', code: 'type-mismatch' }),
      expect.objectContaining({ index: 9, name: 'tags2', code: 'type-mismatch' }),
      expect.objectContaining({ index: 10, name: 'ok', code: 'duplicate-name' }),
      expect.objectContaining({ index: 11, name: 'nested', code: 'uninferable-type' }),
      expect.objectContaining({ index: 12, name: 'nothing', code: 'missing-value' }),
      expect.objectContaining({ index: 13, name: 'has space', code: 'invalid-name' }),
      expect.objectContaining({ index: 14, name: 'AND', code: 'invalid-name' }),
      expect.objectContaining({ index: 15, code: 'invalid-name' }),
      expect.objectContaining({ index: 16, code: 'not-an-object' }),
    ]);
  });

  it('explains the problem in words a client can act on', () => {
    const [unknownType, mismatch, duplicate] = validateProperties([
      { name: 'colour', type: 'color', value: 'red' },
      { name: 'cpus', type: 'int', value: 2.5 },
      { name: 'colour', value: 'blue' },
    ]);
    expect(unknownType?.message).toBe(
      'property 0 "colour" has an unknown type "color"; the types are "string", "int", "float", "boolean", "version", "list of strings"',
    );
    expect(mismatch?.message).toBe('property 1 "cpus": an int property needs a whole number value, got 2.5');
    expect(duplicate?.message).toBe('property 2 "colour" repeats the name of property 0');
  });

  it('agrees with the index: what validates is what evaluation reads', () => {
    const properties = [
      { name: 'a', type: 'version' as const, value: '1.0' },
      { name: 'b', type: 'int' as const, value: 1.5 },
      { name: 'c', value: 'x' },
    ];
    const invalid = new Set(validateProperties(properties).map((problem) => problem.name));
    const indexed = new Set(indexProperties(properties).keys());
    expect(properties.map((p) => indexed.has(p.name))).toEqual(properties.map((p) => !invalid.has(p.name)));
  });
});

describe('indexProperties', () => {
  it('reads each property in its type', () => {
    const index = indexProperties([
      { name: 'v', type: 'version', value: '1.2.0' },
      { name: 'tags', type: 'list of strings', value: ' a , b ' },
      { name: 'n', value: 3 },
    ]);
    expect(index.get('v')).toEqual({ name: 'v', type: 'version', value: '1.2.0', parts: [1, 2] });
    expect(index.get('tags')).toEqual({ name: 'tags', type: 'list of strings', value: new Set(['a', 'b']) });
    expect(index.get('n')).toEqual({ name: 'n', type: 'int', value: 3 });
  });
});

describe('built-in node properties', () => {
  it('are typed so that the agent version compares as a version and validate cleanly', () => {
    const properties = builtinNodeProperties({
      arch: 'arm64',
      cpus: 4,
      memoryMb: 4096,
      os: 'linux',
      agentVersion: '2.31.0',
    });
    expect(properties.map((p) => p.name)).toEqual([
      'careen.arch',
      'careen.cpus',
      'careen.memory',
      'careen.os',
      'careen.agentVersion',
    ]);
    expect(validateProperties(properties)).toEqual([]);
    expect(BUILTIN_PROPERTY_TYPES[CAREEN_AGENT_VERSION]).toBe('version');
    expect(indexProperties(properties).get(CAREEN_AGENT_VERSION)?.type).toBe('version');
  });
});
