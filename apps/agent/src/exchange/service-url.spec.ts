import { serviceUrl } from './http-json';

describe('serviceUrl', () => {
  it.each([
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/v1/orgs'],
    ['http://127.0.0.1:8080/', 'http://127.0.0.1:8080/v1/orgs'],
    // Behind an Ingress that routes by prefix, the prefix stays.
    ['https://hub.example.com/exchange', 'https://hub.example.com/exchange/v1/orgs'],
    ['https://hub.example.com/exchange/', 'https://hub.example.com/exchange/v1/orgs'],
  ])('puts /v1/orgs under %s', (base, url) => {
    expect(serviceUrl(base, '/v1/orgs').href).toBe(url);
  });
});
