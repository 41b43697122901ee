import assert from 'node:assert/strict';
import { covered, findingsOf } from '../support/rules';

const NICE = [
  '#! /bin/sh',
  '#',
  '# Created by configure',
  '',
  '"./configure" \\',
  '"--prefix=/usr/local/apache2" \\',
  '"--enable-mods-shared=most" \\',
  '"--enable-authn-default" \\',
  '"--enable-mem-cache" \\',
  '"--enable-disk-cache" \\',
  '"--enable-proxy-balancer" \\',
  '"--with-mpm=worker" \\',
  '"--enable-ssl" \\',
  '"$@"',
  '',
].join('\n');

describe('rule config-nice', () => {
  it('flags dropped and renamed module options and notes changed defaults', () => {
    const fs = findingsOf(NICE, 'config-nice', { uri: 'file:///usr/local/apache2/build/config.nice' });
    assert.deepEqual(covered(NICE, fs), [
      '"--enable-mods-shared=most"',
      '"--enable-authn-default"',
      '"--enable-mem-cache"',
      '"--enable-disk-cache"',
      '"--enable-proxy-balancer"',
      '"--with-mpm=worker"',
    ]);
    assert.deepEqual(fs.map((f) => f.severity), ['information', 'error', 'error', 'error', 'information', 'information']);
    assert.match(fs[3].message, /cache-disk/);
  });

  it('looks only at files named config.nice, and nothing else flags them', () => {
    assert.deepEqual(findingsOf(NICE, 'config-nice', { uri: 'file:///etc/apache2/apache2.conf' }), []);
    assert.deepEqual(findingsOf(NICE, 'unknown-directive', { uri: 'file:///srv/build/config.nice' }), []);
  });
});
