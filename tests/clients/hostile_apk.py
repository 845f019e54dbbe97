"""Hostile APKs for codeact's tests: a binary manifest whose elements nest DEPTH
deep, optionally with PERMISSIONS distinct <uses-permission> entries, and
optionally a resources.arsc whose two entries name each other (a reference loop
the application label points into).

usage: hostile_apk.py OUT.apk DEPTH [cycle] [permissions=N]"""
import struct, sys, zipfile

def u16(v): return struct.pack('<H', v)
def u32(v): return struct.pack('<I', v & 0xffffffff)

def string_pool(strings):
    n = len(strings)
    offs, data = [], b''
    for s in strings:
        b = s.encode()
        offs.append(len(data))
        data += bytes([len(s), len(b)]) + b + b'\0'
    while len(data) % 4: data += b'\0'
    strings_start = 28 + 4 * n
    size = strings_start + len(data)
    hdr = u16(0x0001) + u16(0x1c) + u32(size) + u32(n) + u32(0) + u32(0x100) + u32(strings_start) + u32(0)
    return hdr + b''.join(u32(o) for o in offs) + data

def start_el(name, attrs=()):
    body = u32(0xffffffff) + u32(name) + u16(0x14) + u16(0x14) + u16(len(attrs)) + u16(0) + u16(0) + u16(0)
    for (aname, dtype, data) in attrs:
        raw = data if dtype == 0x03 else 0xffffffff
        body += u32(0xffffffff) + u32(aname) + u32(raw) + u16(8) + bytes([0, dtype]) + u32(data)
    size = 16 + len(body)
    return u16(0x0102) + u16(0x10) + u32(size) + u32(1) + u32(0xffffffff) + body

def end_el(name):
    return u16(0x0103) + u16(0x10) + u32(24) + u32(1) + u32(0xffffffff) + u32(0xffffffff) + u32(name)

def manifest(depth, label_ref=None, permissions=0):
    S = ["manifest", "package", "com.evil.deep", "application", "label", "a", "x", "uses-permission", "name"]
    S += ["p.%d" % i for i in range(permissions)]
    pool = string_pool(S)
    resmap = u16(0x0180) + u16(8) + u32(8)
    app_attrs = [(4, 0x01, label_ref)] if label_ref else [(4, 0x03, 6)]
    body = start_el(0, [(1, 0x03, 2)]) + start_el(3, app_attrs) + end_el(3)
    for i in range(permissions):
        body += start_el(7, [(8, 0x03, 9 + i)]) + end_el(7)
    # a chain of `depth` nested <a> elements inside <manifest>
    chain = start_el(5) * depth + end_el(5) * depth
    body += chain + end_el(0)
    total = 8 + len(pool) + len(resmap) + len(body)
    return u16(0x0003) + u16(8) + u32(total) + pool + resmap + body

def arsc_cycle():
    gpool = string_pool(["v"])
    tpool = string_pool(["string"])
    kpool = string_pool(["k0", "k1"])
    # type chunk: id 1, 2 entries: 0x7f010000 -> 0x7f010001 -> 0x7f010000
    config = u32(64) + b'\0' * 60
    n = 2
    entries = b''
    offs = []
    for i, target in enumerate([0x7f010001, 0x7f010000]):
        offs.append(len(entries))
        entries += u16(8) + u16(0) + u32(i) + u16(8) + bytes([0, 0x01]) + u32(target)
    header_len = 8 + 1 + 1 + 2 + 4 + 4 + len(config)
    entries_start = header_len + 4 * n
    size = entries_start + len(entries)
    tchunk = u16(0x0201) + u16(header_len) + u32(size) + bytes([1, 0]) + u16(0) + u32(n) + u32(entries_start) + config
    tchunk += b''.join(u32(o) for o in offs) + entries
    name = 'com.evil.deep'.encode('utf-16-le').ljust(256, b'\0')
    pkg_hdr_len = 288
    type_strings = pkg_hdr_len
    key_strings = pkg_hdr_len + len(tpool)
    pkg_body = tpool + kpool + tchunk
    pkg = u16(0x0200) + u16(pkg_hdr_len) + u32(pkg_hdr_len + len(pkg_body)) + u32(0x7f) + name \
        + u32(type_strings) + u32(0) + u32(key_strings) + u32(0) + u32(0) + pkg_body
    total = 12 + len(gpool) + len(pkg)
    return u16(0x0002) + u16(12) + u32(total) + u32(1) + gpool + pkg

out, depth = sys.argv[1], int(sys.argv[2])
cycle = 'cycle' in sys.argv[3:]
permissions = next((int(a.split('=')[1]) for a in sys.argv[3:] if a.startswith('permissions=')), 0)
with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    z.writestr('AndroidManifest.xml', manifest(depth, 0x7f010000 if cycle else None, permissions))
    if cycle:
        z.writestr('resources.arsc', arsc_cycle())
