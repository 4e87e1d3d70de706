#!/usr/bin/env python3
"""Prints a synthetic .harness program with N declarations (default 1000) for benchmarks:
skills, tools and MCP connections, bindings for two runtimes, one workflow, one harness whose
agents require every capability, and two targets."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
caps = max(3, (n - 5) // 2)
skills, tools = caps * 2 // 5, caps * 2 // 5
mcps = caps - skills - tools
bindings = n - 4 - caps
agents = 20
out = []
for i in range(skills):
    out.append(f'skill skill-{i} {{\n  description "Follow policy {i}."\n  permissions {{\n    workspace read\n  }}\n}}\n')
for i in range(tools):
    out.append(f'tool tools.t{i} {{\n  description "Tool {i}."\n  input {{ path mode }}\n  output {{ result }}\n}}\n')
for i in range(mcps):
    out.append(f'mcp mcp-{i} {{\n  transport http\n  url env.MCP_{i}_URL\n}}\n')
names = [f"skill-{i}" for i in range(skills)] + [f"tools.t{i}" for i in range(tools)] + [f"mcp-{i}" for i in range(mcps)]
for i in range(bindings):
    out.append(f'binding {names[i % len(names)]} for {"pi" if i < len(names) else "qoder"} {{\n  mechanism pi.extension\n  strength advisory\n}}\n')
out.append("workflow loop {\n" + "".join(f"  a{i} -> a{(i + 1) % agents}\n" for i in range(agents)) + f"  stop when a{agents - 1}.done\n}}\n")
verbs = {"skill": "use skill", "tools": "require tool", "mcp": "connect mcp"}
body = []
for a in range(agents):
    reqs = "".join(f"    {verbs[name.split('-')[0].split('.')[0]]} {name}\n" for name in names[a::agents])
    body.append(f"  agent a{a} {{\n{reqs}  }}\n")
out.append("harness big {\n  workflow loop\n" + "".join(body) + "  configure {\n    budget = 80\n    timeout = 10m\n  }\n}\n")
out.append("target pi uses adapter.pi\ntarget qoder\n")
sys.stdout.write("\n".join(out))
