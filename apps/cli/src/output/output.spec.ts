import { cellText, formatColumns, formatJson, formatRecord, Printer, type Column } from './output';

function capture() {
  let text = '';
  return { stream: { write: (chunk: string) => (text += chunk) }, text: () => text };
}

interface Row {
  name: string;
  role: string;
}
const COLUMNS: Column<Row>[] = [
  { header: 'NAME', value: (row) => row.name },
  { header: 'ROLE', value: (row) => row.role },
];

describe('output formatting', () => {
  it('aligns columns under a header without borders or trailing spaces', () => {
    const text = formatColumns(COLUMNS, [
      { name: 'ada', role: 'orgAdmin' },
      { name: 'bartholomew', role: 'operator' },
    ]);
    expect(text).toBe(['NAME         ROLE', 'ada          orgAdmin', 'bartholomew  operator', ''].join('\n'));
  });

  it('prints a record as field/value lines in the order of the object', () => {
    const text = formatRecord({ id: 'acme', label: 'Acme Telecom', upgradeDefaults: { window: 3600 } });
    expect(text).toBe(
      ['id               acme', 'label            Acme Telecom', 'upgradeDefaults  {"window":3600}', ''].join(
        '\n',
      ),
    );
  });

  it('shows absent values as empty cells and control characters escaped', () => {
    expect(cellText(undefined)).toBe('');
    expect(cellText(null)).toBe('');
    expect(cellText(3)).toBe('3');
    expect(cellText('two\nlines\u001b[31m')).toBe('two\\nlines\\u001b[31m');
  });

  it('prints JSON pretty with a final newline', () => {
    expect(formatJson({ a: 1 })).toBe('{\n  "a": 1\n}\n');
  });

  it('prints the whole list answer in json and a sentence for an empty list in table', () => {
    const json = capture();
    new Printer(json.stream, 'json').list({ items: [], total: 0 }, COLUMNS, 'no users');
    expect(JSON.parse(json.text())).toEqual({ items: [], total: 0 });

    const table = capture();
    new Printer(table.stream, 'table').list({ items: [], total: 0 }, COLUMNS, 'no users');
    expect(table.text()).toBe('no users\n');
  });

  it('keeps notes for people out of json output', () => {
    const json = capture();
    new Printer(json.stream, 'json').note('removed user "acme/bob"');
    expect(json.text()).toBe('');

    const table = capture();
    new Printer(table.stream, 'table').note('removed user "acme/bob"');
    expect(table.text()).toBe('removed user "acme/bob"\n');
  });
});
