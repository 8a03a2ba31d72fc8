#!/usr/bin/env python3
"""same_code.py DIR: for DIR/<kernel>/<candidate>.cu as --harness-propose writes them, prints
each candidate whose code past its opening comment (which names the variant) equals an earlier
candidate's of the same kernel, one line each; nothing when no two are the same."""
import hashlib
import os
import sys

root = sys.argv[1]
for kernel in sorted(os.listdir(root)):
    seen = {}
    for name in sorted(os.listdir(os.path.join(root, kernel))):
        with open(os.path.join(root, kernel, name)) as f:
            src = f.read()
        code = src[src.index("*/") + 2:] if src.startswith("/*") else src
        digest = hashlib.sha256(code.encode()).hexdigest()
        if digest in seen:
            print(kernel, name, "=", seen[digest])
        seen.setdefault(digest, name)
