"""Makes the CPU-only torch of `.bsuite/torch-cpu` importable from Python, for SB3's tests.

`cargo xtask libtorch` installs torch 2.11.0 from PyPI with only its CPU libraries and the
two small CUDA runtime libraries that `libtorch_cpu.so` links (550 MB instead of 5 GB): that
is LibTorch for the Rust agents. Python's `torch._C` also links `libtorch_cuda.so`, which
needs cuDNN, cuBLAS, NCCL and the other CUDA libraries left out. On a machine without a
GPU none of their functions is ever called, so this writes stub libraries with their
sonames, symbol versions and the symbols torch takes from them, and a `.pth` file that loads
the stubs (so the dynamic loader takes them for the missing libraries, matched by soname)
and puts torch on `sys.path`.

  python torch_cpu_stubs.py TORCH_CPU_DIR STUB_DIR SITE_PACKAGES

Needs `cc` (the C compiler Rust's linking already needs) and binutils' `readelf`.
"""
import os
import pathlib
import re
import subprocess
import sys

SYSTEM_LIBS = ('libc.so.6', 'libm.so.6', 'libstdc++.so.6', 'libgcc_s.so.1', 'libpthread.so.0',
               'libdl.so.2', 'librt.so.1', 'ld-linux-x86-64.so.2')


def readelf(*args):
  return subprocess.run(['readelf', '-W', *args], check=True, capture_output=True,
                        text=True).stdout


def system_path(soname):
  """The system library of `soname`, from ldconfig's cache (None if not installed)."""
  out = subprocess.run(['/sbin/ldconfig', '-p'], capture_output=True, text=True).stdout
  for line in out.splitlines():
    if line.strip().startswith(soname + ' '):
      return line.rsplit('=> ', 1)[1].strip()
  return None


def needed(path):
  return re.findall(r'\(NEEDED\)\s+Shared library: \[(.+?)\]', readelf('-d', str(path)))


def version_files(path):
  """Version name -> the library that must define it (from the version-needs section)."""
  versions, current = {}, None
  for line in readelf('-V', str(path)).splitlines():
    file_match = re.search(r'File: (\S+)', line)
    if file_match:
      current = file_match.group(1)
    name_match = re.search(r'Name: (\S+)', line)
    if name_match and current:
      versions[name_match.group(1)] = current
  return versions


def dynamic_symbols(path):
  """(undefined [(name, version, type, bind)], defined names) of a library."""
  undefined, defined = [], set()
  for line in readelf('--dyn-syms', str(path)).splitlines():
    parts = line.split()
    if len(parts) < 8 or not parts[0].rstrip(':').isdigit():
      continue
    kind, bind, ndx, name = parts[3], parts[4], parts[6], parts[7]
    base, _, version = name.partition('@')
    version = version.lstrip('@')
    if ndx == 'UND':
      if base:
        undefined.append((base, version, kind, bind))
    else:
      defined.add(base)
  return undefined, defined


def main(torch_dir, stub_dir, site_packages):
  torch_dir, stub_dir = pathlib.Path(torch_dir), pathlib.Path(stub_dir)
  stub_dir.mkdir(parents=True, exist_ok=True)
  ours = sorted((torch_dir / 'torch' / 'lib').glob('*.so*'))
  ours += sorted((torch_dir / 'torch').glob('_C*.so'))
  present = {p.name for p in ours}
  for lib_dir in (torch_dir / 'nvidia').glob('*/lib'):
    present.update(p.name for p in lib_dir.glob('*.so*'))
  missing = sorted({lib for path in ours for lib in needed(path)
                    if lib not in present and system_path(lib) is None})
  if not missing:
    print('torch_cpu_stubs: nothing is missing')
  defined = set()
  for lib in list(present) + list(SYSTEM_LIBS):
    path = next((p for p in ours if p.name == lib), None) or system_path(lib)
    if path is None:
      for lib_dir in (torch_dir / 'nvidia').glob('*/lib'):
        if (lib_dir / lib).exists():
          path = lib_dir / lib
    if path:
      defined |= dynamic_symbols(path)[1]
  # What each missing library must provide: its versioned symbols, and (in the first stub)
  # the unversioned ones nothing present defines.
  symbols = {lib: {} for lib in missing}
  versions = {lib: set() for lib in missing}
  for path in ours:
    owners = version_files(path)
    for name, version, kind, bind in dynamic_symbols(path)[0]:
      owner = owners.get(version) if version else None
      if owner in symbols:
        symbols[owner][name] = kind
        versions[owner].add(version)
      elif not version and bind != 'WEAK' and name not in defined and missing:
        symbols[missing[0]][name] = kind
  loaded = []
  for lib in missing:
    source = stub_dir / (lib + '.c')
    lines = ['/* A stub of %s for a CPU-only torch: never called without a GPU. */' % lib]
    for name, kind in sorted(symbols[lib].items()):
      if kind == 'OBJECT' or kind == 'TLS':
        lines.append('char %s[64];' % name)
      else:
        lines.append('int %s(void) { return 1; }' % name)
    source.write_text('\n'.join(lines) + '\n')
    script = stub_dir / (lib + '.map')
    nodes = sorted(versions[lib]) or ['STUB']
    script.write_text(''.join('%s { global: *; };\n' % v for v in nodes[:1]) +
                      ''.join('%s {} %s;\n' % (v, nodes[0]) for v in nodes[1:]))
    out = stub_dir / lib
    subprocess.run(['cc', '-shared', '-fPIC', '-w', '-o', str(out), str(source),
                    '-Wl,-soname,' + lib, '-Wl,--version-script,' + str(script)], check=True)
    loaded.append(str(out))
    print(f'torch_cpu_stubs: {lib} ({len(symbols[lib])} symbols)')
  # A .pth line runs at start-up: load the stubs before anything imports torch.
  pth = pathlib.Path(site_packages) / 'bsuite_torch_cpu.pth'
  pth.write_text(f'{torch_dir}\n'
                 # No comprehension: a .pth line runs in exec, where one sees no `ctypes`.
                 f'import ctypes; tuple(map(ctypes.CDLL, {loaded!r}, '
                 f'[ctypes.RTLD_GLOBAL] * {len(loaded)}))\n')


if __name__ == '__main__':
  main(*sys.argv[1:])
