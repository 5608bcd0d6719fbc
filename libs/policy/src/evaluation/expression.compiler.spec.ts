import { indexProperties } from '../properties/property-index';
import { type Property } from '../properties/property.types';
import { parseConstraint } from '../constraints/constraint.parser';
import { compileExpression, evaluate } from './expression.compiler';

const properties: Property[] = [
  { name: 'zone', value: 'eu-west' },
  { name: 'motto', value: 'hello, world' },
  { name: 'release', value: '2.1.0' },
  { name: 'cpus', value: 4 },
  { name: 'load', value: 0.75 },
  { name: 'gpu', value: true },
  { name: 'headless', value: false },
  { name: 'v', type: 'version', value: '1.10.2' },
  { name: 'tags', type: 'list of strings', value: 'edge,camera, rack-7' },
  { name: 'roles', value: ['db', 'cache'] },
];

function table(title: string, rows: [string, boolean][]): void {
  describe(title, () => {
    it.each(rows)('%s → %s', (constraint, expected) => {
      expect(evaluate(parseConstraint(constraint), properties)).toBe(expected);
    });
  });
}

describe('evaluate', () => {
  table('string properties compare by text, only with == and !=', [
    ['zone == eu-west', true],
    ['zone = "eu-west"', true],
    ["zone == 'EU-west'", false],
    ['zone != eu-west', false],
    ['zone != us-east', true],
    ['zone == us-east, eu-west', true],
    ['zone in us-east, eu-west', true],
    ['zone in us-east, ap-south', false],
    ['zone != us-east, eu-west', false],
    ['zone in "us-east,eu-west"', true],
    ['zone == "us-east, eu-west"', true],
    ['motto == "hello, world"', true],
    ['zone < zzz', false],
    ['zone > a', false],
    ['zone <= eu-west', false],
    ['zone >= eu-west', false],
    ['release in [2.0,3.0)', true],
    ['release in [3.0,INFINITY)', false],
    ['zone in [1.0,INFINITY)', false],
  ]);

  table('numbers compare numerically, int and float alike', [
    ['cpus == 4', true],
    ['cpus == 4.0', true],
    ['cpus == "4"', true],
    ['cpus != 4', false],
    ['cpus != 8', true],
    ['cpus > 2', true],
    ['cpus > 10', false],
    ['cpus >= 4', true],
    ['cpus < 4', false],
    ['cpus <= 4', true],
    ['cpus < 10', true],
    ['cpus == 2, 4, 8', true],
    ['cpus in 2, 8', false],
    ['cpus in [2,8)', true],
    ['cpus in [4,INFINITY)', true],
    ['cpus in (4,8]', false],
    ['cpus in [1.0.0,8)', false],
    ['load < 1', true],
    ['load > 0.5', true],
    ['load == 0.75', true],
    ['load >= -1', true],
    ['cpus == abc', false],
    ['cpus != abc', false],
    ['cpus > abc', false],
    ['cpus == true', false],
  ]);

  table('booleans compare with true and false only', [
    ['gpu == true', true],
    ['gpu = TRUE', true],
    ['gpu == "true"', true],
    ['gpu == false', false],
    ['gpu != false', true],
    ['headless == false', true],
    ['headless != true', true],
    ['gpu in true, false', true],
    ['gpu > false', false],
    ['gpu == 1', false],
    ['gpu != yes', false],
  ]);

  table('a property named alone: a boolean must be true, anything else must exist', [
    ['gpu', true],
    ['headless', false],
    ['NOT headless', true],
    ['zone', true],
    ['cpus', true],
    ['tags', true],
    ['v', true],
    ['nothing', false],
  ]);

  table('versions compare segment by segment, a compared value read as a version', [
    ['v == 1.10.2', true],
    ['v == "1.10.2"', true],
    ['v == 1.10.2.0', true],
    ['v == 1.1', false],
    ['v > 1.9', true],
    ['v > 1.9.99', true],
    ['v < 2', true],
    ['v >= 1.10.2', true],
    ['v <= 1.10.1', false],
    ['v != 1.10.2', false],
    ['v != 1.10.3', true],
    ['v in [1.0.0,2.0.0)', true],
    ['v in [1.10.2,1.10.2]', true],
    ['v in (1.10.2,INFINITY)', false],
    ['v in [1.10.2,INFINITY)', true],
    ['v in (1.0,1.10.2)', false],
    ['v in (1.0,1.10.2]', true],
    ['v in [2.0.0,3.0.0)', false],
    ['v in "[1.0.0,2.0.0)"', true],
    ['v in 1.5', true],
    ['v in 1.11', false],
    ['v in 1.0, 1.10.2', true],
    ['v in "1.0,1.10.2"', true],
    ['v == 1.0, 1.10.2', true],
    ['v == abc', false],
    ['v != abc', false],
    ['v < abc', false],
  ]);

  table('lists of strings: == is membership, in is a non-empty intersection', [
    ['tags == camera', true],
    ['tags == rack-7', true],
    ['tags == gateway', false],
    ['tags != gateway', true],
    ['tags != camera', false],
    ['tags in gateway, camera', true],
    ['tags in gateway, router', false],
    ['tags in "gateway,edge"', true],
    ['tags == gateway, edge', true],
    ['roles == cache', true],
    ['roles in web', false],
    ['tags < zzz', false],
    ['tags in [1.0,2.0)', false],
  ]);

  table("Open Horizon's rule: a comparison on a missing property is false", [
    ['missing == 1', false],
    ['missing != 1', false],
    ['missing < 1', false],
    ['missing > 1', false],
    ['missing in [1.0,INFINITY)', false],
    ['missing in a, b', false],
    ['missing', false],
    ['missing == 1 OR cpus == 4', true],
    ['missing == 1 AND cpus == 4', false],
    // NOT negates the false comparison, so a missing property satisfies NOT (x == 1)
    ['NOT (missing == 1)', true],
    ['NOT missing != 1', true],
    ['NOT missing', true],
    ['missing AND missing != 1', false],
  ]);

  table('logic: AND binds tighter than OR, parentheses regroup', [
    ['cpus == 1 OR cpus == 4 AND gpu', true],
    ['(cpus == 1 OR cpus == 4) AND headless', false],
    ['cpus == 1 OR cpus == 4 AND headless', false],
    ['cpus == 4 AND headless OR gpu', true],
    ['NOT (cpus == 4 AND gpu)', false],
    ['!(cpus == 4) || !gpu', false],
    ['zone == eu-west && v in [1.0,2.0) && tags == edge', true],
  ]);

  it('reads the same from a prebuilt index as from the property array', () => {
    const index = indexProperties(properties);
    const test = compileExpression(parseConstraint('cpus >= 4 AND tags == edge'));
    expect(test(index)).toBe(true);
    expect(evaluate(parseConstraint('cpus >= 4 AND tags == edge'), index)).toBe(true);
  });

  it('treats a property whose value does not fit its type as missing', () => {
    const odd: Property[] = [
      { name: 'v', type: 'version', value: 'latest' },
      { name: 'n', type: 'int', value: 2.5 },
    ];
    expect(evaluate(parseConstraint('v'), odd)).toBe(false);
    expect(evaluate(parseConstraint('n'), odd)).toBe(false);
  });

  it('reads the first of two properties with the same name', () => {
    const twice: Property[] = [
      { name: 'zone', value: 'a' },
      { name: 'zone', value: 'b' },
    ];
    expect(evaluate(parseConstraint('zone == a'), twice)).toBe(true);
    expect(evaluate(parseConstraint('zone == b'), twice)).toBe(false);
  });
});
