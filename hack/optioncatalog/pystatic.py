"""A small static evaluator for the Python that lists oslo.config options.

oslo-config-generator imports a project and calls the functions its
``oslo.config.opts`` entry points name. This module reads the same
functions from the sources with ``ast`` and evaluates only what they need:
module-level lists of ``cfg.*Opt(...)`` calls, concatenation,
``itertools.chain``, ``copy.deepcopy``, list comprehensions, simple
functions and classes. Nothing of the projects is imported or run, so the
sources of any release can be read from git without installing it.

Anything it cannot evaluate becomes an ``Unknown`` carrying the reason; an
``Unknown`` that reaches a result is an error, never a silent gap. Calls
that a project makes into plugin machinery (stevedore entry points) are
answered by shims the caller registers (see catalog.py), each reading the
same entry points from the sources.
"""

import ast
import subprocess


class EvalError(Exception):
    pass


class Unknown:
    """A value the evaluator could not compute, and why."""

    def __init__(self, why):
        self.why = why

    def __repr__(self):
        return 'Unknown(%s)' % self.why


class Opt:
    """An oslo.config option: what a catalog records of it."""

    def __init__(self, name, deprecated, for_removal):
        self.name = name.replace('-', '_')
        # (group or None for "the option's own group", name or None for
        # "the option's own name"), as oslo.config's _get_from_namespace.
        self.deprecated = deprecated
        self.for_removal = for_removal

    def __deepcopy__(self, memo):
        return self


class DeprecatedOpt:
    def __init__(self, name, group):
        self.name = name.replace('-', '_') if isinstance(name, str) else None
        self.group = group if isinstance(group, str) else None


class OptGroup:
    def __init__(self, name):
        self.name = name


class External:
    """Something outside the sources read (a library not in the source set,
    or Python's standard library): only its dotted name is known."""

    def __init__(self, qualname):
        self.qualname = qualname

    def __repr__(self):
        return 'External(%s)' % self.qualname


class Function:
    def __init__(self, node, module, owner=None):
        self.node, self.module, self.owner = node, module, owner
        self.attrs = {}
        self.qualname = module.name + '.' + node.name


class Class:
    def __init__(self, node, module, bases, attrs):
        self.node, self.module, self.bases, self.attrs = node, module, bases, attrs
        self.qualname = module.name + '.' + node.name

    def mro(self):
        out = [self]
        for b in self.bases:
            if isinstance(b, Class):
                for c in b.mro():
                    if c not in out:
                        out.append(c)
        return out

    def lookup(self, attr, start_after=None):
        chain = self.mro()
        if start_after is not None:
            chain = chain[chain.index(start_after) + 1:]
        for c in chain:
            if attr in c.attrs:
                return c, c.attrs[attr]
        return None, None

    def is_opt_subclass(self):
        return any(isinstance(b, External) and is_oslo_opt_class(b.qualname)
                   for c in self.mro() for b in c.bases)


class Instance:
    def __init__(self, cls):
        self.cls, self.attrs = cls, {}


class Bound:
    def __init__(self, func, self_, cls):
        self.func, self.self_, self.cls = func, self_, cls


class Super:
    def __init__(self, self_, after):
        self.self_, self.after = self_, after


class Builtin:
    def __init__(self, name, fn):
        self.name, self.fn = name, fn


class Module:
    def __init__(self, name, path, tree, interp):
        self.name, self.path, self.tree, self.interp = name, path, tree, interp
        self.globals = {'__name__': name}
        self.is_package = path.endswith('__init__.py')


# Option classes of the sources that build what a catalog records as an
# option: keystoneauth's loading Opt becomes an oslo.config option through
# _to_oslo_opt(), keeping its name and its `deprecated` aliases.
OPT_CLASSES = {'keystoneauth1.loading.opts.Opt'}


def is_oslo_opt_class(qualname):
    mod, _, cls = qualname.rpartition('.')
    return (mod in ('oslo_config.cfg', 'oslo_config')
            and cls.endswith('Opt') and cls != 'DeprecatedOpt')


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class Sources:
    """Python packages read from git: package name -> (git dir, ref)."""

    def __init__(self):
        self.roots = {}
        self._cache = {}
        self._batch = {}

    def add(self, package, gitdir, ref, subdir=''):
        self.roots[package] = (gitdir, ref, subdir)

    def read(self, modname):
        """The (path, text) of a module, or None when it is not in the set."""
        root = modname.split('.')[0]
        if root not in self.roots:
            return None
        gitdir, ref, subdir = self.roots[root]
        base = subdir + modname.replace('.', '/')
        for path in (base + '.py', base + '/__init__.py'):
            text = self._show(gitdir, ref, path)
            if text is not None:
                return path, text
        return None

    def _show(self, gitdir, ref, path):
        key = (gitdir, ref, path)
        if key not in self._cache:
            self._cache[key] = self._cat(gitdir, '%s:%s' % (ref, path))
        return self._cache[key]

    def _cat(self, gitdir, obj):
        # One `git cat-file --batch` per repository: a process per file
        # made a catalog take most of a minute.
        p = self._batch.get(gitdir)
        if p is None:
            p = subprocess.Popen(['git', '--git-dir', gitdir, 'cat-file', '--batch'],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            self._batch[gitdir] = p
        p.stdin.write(obj.encode() + b'\n')
        p.stdin.flush()
        header = p.stdout.readline().decode().split()
        if len(header) < 3 or header[1] != 'blob':
            return None
        data = p.stdout.read(int(header[2]) + 1)[:-1]
        return data.decode()


class Interpreter:
    def __init__(self, sources, shims):
        self.sources = sources
        # qualified name -> python callable(interp, args, kwargs)
        self.shims = shims
        self.modules = {}
        self._in_try = 0

    # ---- modules -------------------------------------------------------

    def module(self, name):
        """The module name, executed, or an External when not in the set."""
        if name in self.modules:
            return self.modules[name]
        found = self.sources.read(name)
        if found is None:
            return External(name)
        path, text = found
        tree = ast.parse(text, filename=path)
        mod = Module(name, path, tree, self)
        self.modules[name] = mod
        # A package's __init__ runs before its submodules, as in Python.
        if '.' in name:
            self.module(name.rsplit('.', 1)[0])
        self._exec_module_body(mod, tree.body)
        return mod

    def _exec_module_body(self, mod, body):
        for stmt in body:
            try:
                if isinstance(stmt, ast.Try):
                    self._exec_module_body(mod, stmt.body)
                elif isinstance(stmt, ast.If):
                    test = self.eval(stmt.test, mod.globals, mod)
                    if isinstance(test, Unknown):
                        continue
                    self._exec_module_body(mod, stmt.body if test else stmt.orelse)
                else:
                    self.exec_stmt(stmt, mod.globals, mod)
            except (EvalError, _Return):
                # A module statement this evaluator cannot follow: names it
                # binds stay Unknown and fail only where a result uses them.
                for name in _bound_names(stmt):
                    mod.globals[name] = Unknown('%s: line %d of %s' % (name, stmt.lineno, mod.path))

    def attr_of_module(self, mod, attr):
        if attr in mod.globals:
            return mod.globals[attr]
        sub = self.module(mod.name + '.' + attr)
        if isinstance(sub, Module):
            return sub
        return Unknown('%s has no %s' % (mod.name, attr))

    def resolve_dotted(self, dotted):
        parts = dotted.split('.')
        for i in range(len(parts), 0, -1):
            m = self.module('.'.join(parts[:i]))
            if isinstance(m, Module):
                v = m
                for p in parts[i:]:
                    v = self.getattr(v, p)
                return v
        return External(dotted)

    # ---- statements ----------------------------------------------------

    def exec_stmt(self, stmt, scope, mod):
        t = type(stmt)
        if t is ast.Import:
            for a in stmt.names:
                if a.asname:
                    scope[a.asname] = self.module(a.name)
                else:
                    top = a.name.split('.')[0]
                    self.module(a.name)
                    scope[top] = self.module(top)
        elif t is ast.ImportFrom:
            base = stmt.module or ''
            if stmt.level:
                pkg = mod.name if mod.is_package else mod.name.rsplit('.', 1)[0]
                for _ in range(stmt.level - 1):
                    pkg = pkg.rsplit('.', 1)[0]
                base = pkg + ('.' + base if base else '')
            src = self.module(base)
            for a in stmt.names:
                if a.name == '*':
                    if isinstance(src, Module):
                        names = src.globals.get('__all__')
                        if not isinstance(names, (list, tuple)):
                            names = [n for n in src.globals if not n.startswith('_')]
                        for n in names:
                            scope[n] = self.attr_of_module(src, n)
                    continue
                if isinstance(src, Module):
                    v = self.attr_of_module(src, a.name)
                else:
                    v = self.module(base + '.' + a.name)
                    if not isinstance(v, Module):
                        v = External(base + '.' + a.name)
                scope[a.asname or a.name] = v
        elif t is ast.Assign:
            v = self.eval(stmt.value, scope, mod)
            if self._in_try and isinstance(v, Unknown):
                raise EvalError(v.why)
            for target in stmt.targets:
                self.assign(target, v, scope, mod)
        elif t is ast.AnnAssign:
            if stmt.value is not None:
                self.assign(stmt.target, self.eval(stmt.value, scope, mod), scope, mod)
        elif t is ast.AugAssign:
            cur = self.eval(stmt.target, scope, mod)
            v = self.eval(stmt.value, scope, mod)
            if isinstance(stmt.op, ast.Add) and isinstance(cur, list):
                cur.extend(self.iterate(v))
                self.assign(stmt.target, cur, scope, mod)
            else:
                self.assign(stmt.target, self.binop(stmt.op, cur, v), scope, mod)
        elif t is ast.Expr:
            self.eval(stmt.value, scope, mod)
        elif t is ast.FunctionDef:
            scope[stmt.name] = self._decorated(Function(stmt, mod), stmt, scope, mod)
        elif t is ast.ClassDef:
            scope[stmt.name] = self._class(stmt, scope, mod)
        elif t is ast.Return:
            raise _Return(None if stmt.value is None else self.eval(stmt.value, scope, mod))
        elif t is ast.If:
            test = self.eval(stmt.test, scope, mod)
            if isinstance(test, Unknown):
                raise EvalError('condition at line %d of %s: %s' % (stmt.lineno, mod.path, test.why))
            self.exec_block(stmt.body if test else stmt.orelse, scope, mod)
        elif t is ast.For:
            for item in self.iterate(self.eval(stmt.iter, scope, mod)):
                self.assign(stmt.target, item, scope, mod)
                try:
                    self.exec_block(stmt.body, scope, mod)
                except _Continue:
                    continue
        elif t is ast.Continue:
            raise _Continue()
        elif t is ast.Try:
            # The body "raises" when it fails or binds an unknown (an
            # attribute the value lacks): then the first handler runs, as
            # for `try: x.attr except AttributeError: ...`.
            self._in_try += 1
            try:
                self.exec_block(stmt.body, scope, mod)
                failed = False
            except EvalError:
                if not stmt.handlers:
                    raise
                failed = True
            finally:
                self._in_try -= 1
            self.exec_block(stmt.handlers[0].body if failed else stmt.orelse, scope, mod)
            self.exec_block(stmt.finalbody, scope, mod)
        elif t in (ast.Pass, ast.Global, ast.Nonlocal, ast.Assert, ast.Delete):
            pass
        else:
            raise EvalError('%s at line %d of %s' % (t.__name__, stmt.lineno, mod.path))

    def exec_block(self, body, scope, mod):
        for s in body:
            self.exec_stmt(s, scope, mod)

    def _decorated(self, fn, node, scope, mod):
        for d in node.decorator_list:
            name = ast.unparse(d)
            if name in ('staticmethod', 'classmethod', 'property', 'abc.abstractmethod'):
                continue
            return Unknown('decorated %s (%s)' % (node.name, name))
        return fn

    def _class(self, node, scope, mod):
        bases = [self.eval(b, scope, mod) for b in node.bases]
        attrs = {}
        for stmt in node.body:
            try:
                if isinstance(stmt, ast.FunctionDef):
                    attrs[stmt.name] = Function(stmt, mod)
                    if any(ast.unparse(d) == 'classmethod' for d in stmt.decorator_list):
                        attrs[stmt.name].classmethod = True
                else:
                    self.exec_stmt(stmt, attrs, mod)
            except (EvalError, _Return):
                for name in _bound_names(stmt):
                    attrs[name] = Unknown(name)
        cls = Class(node, mod, bases, attrs)
        for f in attrs.values():
            if isinstance(f, Function):
                f.owner = cls
        return cls

    def assign(self, target, value, scope, mod):
        if isinstance(target, ast.Name):
            scope[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = list(self.iterate(value))
            if len(items) != len(target.elts):
                raise EvalError('unpacking %d values into %d' % (len(items), len(target.elts)))
            for t, v in zip(target.elts, items):
                self.assign(t, v, scope, mod)
        elif isinstance(target, ast.Attribute):
            obj = self.eval(target.value, scope, mod)
            # An attribute set on a class or function after its definition
            # (glance_store's swift driver is a factory function carrying
            # OPTIONS) counts like one set in its body.
            if isinstance(obj, (Instance, Class, Function)):
                obj.attrs[target.attr] = value
        elif isinstance(target, ast.Subscript):
            obj = self.eval(target.value, scope, mod)
            key = self.eval(target.slice, scope, mod)
            if isinstance(obj, (dict, list)):
                obj[key] = value
            else:
                raise EvalError('item assignment to %r' % (obj,))
        else:
            raise EvalError('assignment to %s' % type(target).__name__)

    # ---- expressions ---------------------------------------------------

    def eval(self, node, scope, mod):
        t = type(node)
        if t is ast.Constant:
            return node.value
        if t is ast.Name:
            for s in (scope, mod.globals):
                if node.id in s:
                    return s[node.id]
            if node.id in BUILTINS:
                return BUILTINS[node.id]
            return Unknown('name %s in %s' % (node.id, mod.path))
        if t is ast.Attribute:
            return self.getattr(self.eval(node.value, scope, mod), node.attr)
        if t in (ast.List, ast.Tuple, ast.Set):
            out = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    out.extend(self.iterate(self.eval(e.value, scope, mod)))
                else:
                    out.append(self.eval(e, scope, mod))
            return tuple(out) if t is ast.Tuple else out
        if t is ast.Dict:
            out = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    out.update(self.eval(v, scope, mod))
                else:
                    out[self.hashable(self.eval(k, scope, mod))] = self.eval(v, scope, mod)
            return out
        if t is ast.BinOp:
            return self.binop(node.op, self.eval(node.left, scope, mod), self.eval(node.right, scope, mod))
        if t is ast.Call:
            fn = self.eval(node.func, scope, mod)
            if fn is BUILTINS['super']:
                if '__class_cell__' not in scope:
                    raise EvalError('super() outside a method in %s' % mod.path)
                return Super(scope['__self__'], scope['__class_cell__'])
            args, kwargs = [], {}
            for a in node.args:
                if isinstance(a, ast.Starred):
                    args.extend(self.iterate(self.eval(a.value, scope, mod)))
                else:
                    args.append(_Lazy(self, a, scope, mod))
            for k in node.keywords:
                if k.arg is None:
                    kwargs.update(self.eval(k.value, scope, mod))
                else:
                    kwargs[k.arg] = _Lazy(self, k.value, scope, mod)
            return self.call(fn, args, kwargs, node)
        if t is ast.Subscript:
            obj = self.eval(node.value, scope, mod)
            if isinstance(node.slice, ast.Slice):
                lo = None if node.slice.lower is None else self.eval(node.slice.lower, scope, mod)
                hi = None if node.slice.upper is None else self.eval(node.slice.upper, scope, mod)
                return obj[lo:hi]
            if isinstance(obj, (Class, External)):
                return obj  # a generic alias (Loader[Password]) is its class
            key = self.eval(node.slice, scope, mod)
            if isinstance(obj, (list, tuple, dict, str)) or hasattr(obj, 'pyattrs'):
                try:
                    return obj[self.hashable(key)]
                except (KeyError, IndexError, TypeError) as e:
                    raise EvalError('subscript: %s' % e)
            return Unknown('subscript of %r' % (obj,))
        if t in (ast.ListComp, ast.GeneratorExp, ast.SetComp):
            return self.comprehension(node, scope, mod, lambda s: [self.eval(node.elt, s, mod)])
        if t is ast.DictComp:
            out = {}
            for pair in self.comprehension(node, scope, mod, lambda s: [(self.eval(node.key, s, mod), self.eval(node.value, s, mod))]):
                out[pair[0]] = pair[1]
            return out
        if t is ast.JoinedStr:
            parts = []
            for v in node.values:
                x = self.eval(v.value if isinstance(v, ast.FormattedValue) else v, scope, mod)
                if isinstance(x, Unknown):
                    return x
                parts.append(str(x))
            return ''.join(parts)
        if t is ast.BoolOp:
            vals = [self.eval(v, scope, mod) for v in node.values]
            if any(isinstance(v, Unknown) for v in vals):
                return Unknown('boolean of unknowns')
            if isinstance(node.op, ast.And):
                return all(vals)
            return next((v for v in vals if v), vals[-1])
        if t is ast.UnaryOp:
            v = self.eval(node.operand, scope, mod)
            if isinstance(v, Unknown):
                return v
            if isinstance(node.op, ast.Not):
                return not v
            if isinstance(node.op, ast.USub):
                return -v
            return Unknown('unary op')
        if t is ast.Compare:
            left = self.eval(node.left, scope, mod)
            for op, right_node in zip(node.ops, node.comparators):
                right = self.eval(right_node, scope, mod)
                if isinstance(left, Unknown) or isinstance(right, Unknown):
                    return Unknown('comparison with an unknown')
                ok = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
                      ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
                      ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b}.get(type(op))
                if ok is None or not ok(left, right):
                    return False if ok else Unknown('comparison')
                left = right
            return True
        if t is ast.IfExp:
            test = self.eval(node.test, scope, mod)
            if isinstance(test, Unknown):
                return test
            return self.eval(node.body if test else node.orelse, scope, mod)
        return Unknown('%s expression at line %d of %s' % (t.__name__, getattr(node, 'lineno', 0), mod.path))

    def comprehension(self, node, scope, mod, produce):
        out = []

        def walk(i, s):
            if i == len(node.generators):
                out.extend(produce(s))
                return
            g = node.generators[i]
            for item in self.iterate(self.eval(g.iter, s, mod)):
                inner = dict(s)
                self.assign(g.target, item, inner, mod)
                conds = [self.eval(c, inner, mod) for c in g.ifs]
                if any(isinstance(c, Unknown) for c in conds):
                    raise EvalError('comprehension condition in %s' % mod.path)
                if all(conds):
                    walk(i + 1, inner)
        walk(0, dict(scope))
        return out

    def binop(self, op, a, b):
        if isinstance(a, Unknown) or isinstance(b, Unknown):
            return Unknown('arithmetic on unknowns')
        if isinstance(op, ast.Add):
            if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
                return list(a) + list(b) if isinstance(a, list) else tuple(a) + tuple(b)
            if isinstance(a, (str, int, float)) and type(a) is type(b):
                return a + b
        if isinstance(op, ast.Mult) and isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return a * b
        if isinstance(op, ast.Mod) and isinstance(a, str):
            try:
                return a % b
            except (TypeError, ValueError):
                return Unknown('string format')
        return Unknown('operator %s on %s and %s' % (type(op).__name__, type(a).__name__, type(b).__name__))

    def hashable(self, v):
        if isinstance(v, list):
            return tuple(v)
        return v

    def iterate(self, v):
        if isinstance(v, (list, tuple, set)):
            return list(v)
        if isinstance(v, dict):
            return list(v.keys())
        if isinstance(v, str):
            return list(v)
        if isinstance(v, Unknown):
            raise EvalError('iterating an unknown: %s' % v.why)
        if hasattr(v, '__iter__'):
            return list(v)
        raise EvalError('iterating %r' % (v,))

    def getattr(self, obj, attr):
        if isinstance(obj, Module):
            return self.attr_of_module(obj, attr)
        if isinstance(obj, External):
            return External(obj.qualname + '.' + attr)
        if isinstance(obj, Function):
            return obj.attrs.get(attr, Unknown('%s.%s' % (obj.qualname, attr)))
        if isinstance(obj, Class):
            owner, v = obj.lookup(attr)
            return v if owner else Unknown('%s.%s' % (obj.qualname, attr))
        if isinstance(obj, Instance):
            if attr in obj.attrs:
                return obj.attrs[attr]
            owner, v = obj.cls.lookup(attr)
            if isinstance(v, Function):
                return Bound(v, obj, owner)
            return v if owner else Unknown('%s().%s' % (obj.cls.qualname, attr))
        if isinstance(obj, Super):
            owner, v = obj.self_.cls.lookup(attr, start_after=obj.after)
            if isinstance(v, Function):
                return Bound(v, obj.self_, owner)
            return v if owner else Unknown('super().%s' % attr)
        if isinstance(obj, (Opt, OptGroup)) and attr in ('name', 'dest'):
            return obj.name
        if isinstance(obj, Opt) and attr == '_to_oslo_opt':
            return Builtin('_to_oslo_opt', lambda: obj)
        if isinstance(obj, list) and attr in ('extend', 'append', 'copy', 'insert'):
            return Builtin('list.' + attr, getattr(obj, attr))
        if isinstance(obj, dict) and attr in ('items', 'keys', 'values', 'get', 'update', 'copy', 'setdefault'):
            return Builtin('dict.' + attr, lambda *a: _listify(getattr(obj, attr)(*a)))
        if isinstance(obj, str) and attr in ('format', 'replace', 'lower', 'upper', 'join', 'split', 'startswith'):
            return Builtin('str.' + attr, getattr(obj, attr))
        if hasattr(obj, 'pyattrs') and attr in obj.pyattrs:
            return obj.pyattrs[attr]
        return Unknown('attribute %s of %r' % (attr, obj))

    # ---- calls ---------------------------------------------------------

    def call(self, fn, args, kwargs, node=None):
        qual = getattr(fn, 'qualname', None)
        if qual in self.shims:
            return self.shims[qual](self, [_force(a) for a in args], {k: _force(v) for k, v in kwargs.items()})
        if isinstance(fn, External):
            return self._call_external(fn, args, kwargs)
        if isinstance(fn, Class):
            if fn.is_opt_subclass() or fn.qualname in OPT_CLASSES:
                return self._make_opt(args, kwargs)
            inst = Instance(fn)
            owner, init = fn.lookup('__init__')
            if isinstance(init, Function):
                try:
                    self.run_function(init, [inst] + list(args), kwargs, owner)
                except EvalError:
                    pass  # attributes __init__ would set stay unknown
            return inst
        if isinstance(fn, Function):
            if getattr(fn, 'classmethod', False) and fn.owner is not None:
                return self.run_function(fn, [fn.owner] + list(args), kwargs, fn.owner)
            return self.run_function(fn, args, kwargs, fn.owner)
        if isinstance(fn, Bound):
            first = fn.self_.cls if getattr(fn.func, 'classmethod', False) else fn.self_
            return self.run_function(fn.func, [first] + list(args), kwargs, fn.cls)
        if fn is BUILTINS['isinstance']:
            return self._isinstance(_force(args[0]), _force(args[1]))
        if fn is BUILTINS['getattr']:
            obj, attr = _force(args[0]), _force(args[1])
            v = self.getattr(obj, attr)
            return _force(args[2]) if isinstance(v, Unknown) and len(args) > 2 else v
        if isinstance(fn, Builtin):
            try:
                return fn.fn(*[_force(a) for a in args], **{k: _force(v) for k, v in kwargs.items()})
            except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:
                raise EvalError('%s(): %s' % (fn.name, e))
        if isinstance(fn, Unknown):
            raise EvalError('calling an unknown: %s' % fn.why)
        raise EvalError('calling %r' % (fn,))

    def _isinstance(self, obj, types):
        types = types if isinstance(types, (list, tuple)) else [types]
        known = {'str': str, 'list': list, 'tuple': tuple, 'dict': dict, 'int': int, 'bool': bool}
        for t in types:
            if isinstance(t, Builtin) and t.name in known:
                if isinstance(obj, known[t.name]):
                    return True
            elif isinstance(t, Class):
                if isinstance(obj, Instance) and t in obj.cls.mro():
                    return True
            else:
                return Unknown('isinstance of %r' % (t,))
        return False

    def _call_external(self, fn, args, kwargs):
        q = fn.qualname
        if is_oslo_opt_class(q):
            return self._make_opt(args, kwargs)
        if q in ('oslo_config.cfg.DeprecatedOpt', 'oslo_config.DeprecatedOpt'):
            name = _force(args[0]) if args else _force(kwargs.get('name'))
            group = _force(args[1]) if len(args) > 1 else _force(kwargs.get('group'))
            return DeprecatedOpt(name, group)
        if q in ('oslo_config.cfg.OptGroup',):
            return OptGroup(_force(args[0]) if args else _force(kwargs['name']))
        if q in ('copy.deepcopy', 'copy.copy'):
            v = _force(args[0])
            return _copy(v)
        if q == 'typing.cast':
            return _force(args[1])
        if q in ('itertools.chain',):
            out = []
            for a in args:
                out.extend(self.iterate(_force(a)))
            return out
        if q == 'itertools.chain.from_iterable':
            out = []
            for a in self.iterate(_force(args[0])):
                out.extend(self.iterate(a))
            return out
        if q.endswith('._') or q in ('oslo_i18n._', 'gettext.gettext'):
            return _force(args[0]) if args else ''
        return Unknown('call of %s' % q)

    def _make_opt(self, args, kwargs):
        name = _force(args[0]) if args else _force(kwargs.get('name'))
        if not isinstance(name, str):
            raise EvalError('an option without a literal name: %r' % (name,))
        deprecated = []
        dname = _force(kwargs['deprecated_name']) if 'deprecated_name' in kwargs else None
        dgroup = _force(kwargs['deprecated_group']) if 'deprecated_group' in kwargs else None
        for d in self._optional_list(kwargs, 'deprecated_opts'):
            if isinstance(d, Unknown) or not isinstance(d, DeprecatedOpt):
                raise EvalError('deprecated_opts of %s: %r' % (name, d))
            deprecated.append((d.group, d.name))
        if dname is not None or dgroup is not None:
            deprecated.append((dgroup if isinstance(dgroup, str) else None,
                               dname.replace('-', '_') if isinstance(dname, str) else None))
        # keystoneauth's loading Opt names its aliases `deprecated`.
        for d in self._optional_list(kwargs, 'deprecated'):
            if not isinstance(d, Opt):
                raise EvalError('deprecated of %s: %r' % (name, d))
            deprecated.append((None, d.name))
        fr = _force(kwargs['deprecated_for_removal']) if 'deprecated_for_removal' in kwargs else False
        if isinstance(fr, Unknown):
            raise EvalError('deprecated_for_removal of %s: %s' % (name, fr.why))
        return Opt(name, deprecated, bool(fr))

    def _optional_list(self, kwargs, key):
        v = _force(kwargs.get(key))
        return [] if v is None else self.iterate(v)

    def run_function(self, fn, args, kwargs, owner):
        node = fn.node
        scope = {}
        a = node.args
        params = [p.arg for p in a.posonlyargs + a.args]
        defaults = dict(zip(params[len(params) - len(a.defaults):], a.defaults))
        args = list(args)
        for i, p in enumerate(params):
            if i < len(args):
                scope[p] = _force(args[i])
            elif p in kwargs:
                scope[p] = _force(kwargs.pop(p))
            elif p in defaults:
                scope[p] = self.eval(defaults[p], fn.module.globals, fn.module)
            else:
                raise EvalError('missing argument %s of %s' % (p, fn.qualname))
        if a.vararg:
            scope[a.vararg.arg] = [_force(x) for x in args[len(params):]]
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if p.arg in kwargs:
                scope[p.arg] = _force(kwargs.pop(p.arg))
            elif d is not None:
                scope[p.arg] = self.eval(d, fn.module.globals, fn.module)
        if a.kwarg:
            scope[a.kwarg.arg] = {k: _force(v) for k, v in kwargs.items()}
        if owner is not None and params and params[0] in scope:
            scope['__class_cell__'] = owner
            scope['__self__'] = scope[params[0]]
        try:
            self.exec_block(node.body, scope, fn.module)
        except _Return as r:
            return r.value
        return None


class _Continue(Exception):
    pass


class _Lazy:
    """An argument evaluated only when used: an option's help text or
    default may call things outside the sources without harm."""

    def __init__(self, interp, node, scope, mod):
        self.interp, self.node, self.scope, self.mod = interp, node, scope, mod

    def force(self):
        return self.interp.eval(self.node, self.scope, self.mod)


def _force(v):
    return v.force() if isinstance(v, _Lazy) else v


def _copy(v):
    if isinstance(v, list):
        return [_copy(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_copy(x) for x in v)
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    return v


def _listify(v):
    return list(v) if not isinstance(v, (str, int, type(None), list, dict)) else v


def _bound_names(stmt):
    if isinstance(stmt, ast.Assign):
        return [n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
        return [stmt.name]
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split('.')[0] for a in stmt.names]
    return []


def _super(*args):
    raise EvalError('super() outside a method')


def _sorted(it, key=None, reverse=False):
    if key is not None:
        raise EvalError('sorted with a key')
    return sorted(it, reverse=reverse)


BUILTINS = {
    'list': Builtin('list', lambda x=(): list(x) if not isinstance(x, dict) else list(x.keys())),
    'tuple': Builtin('tuple', lambda x=(): tuple(x)),
    'dict': Builtin('dict', lambda *a, **k: dict(*a, **k)),
    'set': Builtin('set', lambda x=(): list(dict.fromkeys(x))),
    'sorted': Builtin('sorted', _sorted),
    'len': Builtin('len', len),
    'str': Builtin('str', str),
    'isinstance': Builtin('isinstance', None),
    'int': Builtin('int', int),
    'bool': Builtin('bool', bool),
    'super': Builtin('super', _super),
    'object': Builtin('object', object),
    'getattr': Builtin('getattr', None),
    'True': True, 'False': False, 'None': None,
}
