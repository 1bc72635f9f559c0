import { describe, expect, it } from 'vitest';
import { hasNamelessParam } from '../../src/http/openapi';
import { originOf } from '../../src/http/urls';

// Both read a request's URL as text where `new URL` parsed it again on every request: each is held
// to URL's own answer, on every query and address form below.
const QUERIES = [
  '',
  '?',
  '?=',
  '?=open',
  '?a=1',
  '?a=1&=x',
  '?a=1&&b=2',
  '?a=&b=',
  '?&',
  '?&=',
  '?a==b',
  '?%3D=1',
  '?a=1#=frag',
  '?a=1#&=frag',
  '#?=x',
  '?+=1',
  '?a=1&b=%26=',
];

describe('reading a request URL as text', () => {
  it('finds a nameless query parameter exactly where URLSearchParams does', () => {
    for (const query of QUERIES) {
      const url = `https://crm.test/v1/deals${query}`;
      expect(hasNamelessParam(url), url).toBe(new URL(url).searchParams.has(''));
    }
  });

  it('gives the same origin as URL', () => {
    for (const base of [
      'http://crm.test',
      'https://API.Example.COM:443',
      'http://127.0.0.1:8787',
      'http://[::1]:8787',
      'https://user:pass@crm.test',
      'https://crm.test:8443',
    ]) {
      for (const rest of ['/v1/users?cursor=x', '/', '/a/b@c']) {
        const url = new Request(`${base}${rest}`).url;
        expect(originOf(url), url).toBe(new URL(url).origin);
      }
    }
  });
});
