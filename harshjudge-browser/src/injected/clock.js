// The fake clock of `page.clock()` (clock.rs): `Date`, `performance.now`,
// the timers, `requestAnimationFrame`, `requestIdleCallback` and
// `Intl.DateTimeFormat`'s default date. Self-contained: Rust wraps
// this file in a function with `hjClockRun` as its entry, both as an init
// script of the page (replaying the operations done so far in each new
// document, before its own scripts) and as an evaluation in the document
// there now (and its same-origin frames).
//
// Two quantities, as Playwright's clock keeps them: `ticks`, the monotonic
// milliseconds since install that timers and `performance.now()` follow, and
// the wall clock `Date` shows (`wallOffset + ticks`, or a fixed time). Ticks
// flow with the real clock unless paused; `run_for` and `fast_forward` move
// them on at once. A real timer of the page's own wakes the clock when the
// earliest fake timer is due while time flows.
//
// An operation is `{op, real, seq, ...}` (`ClockOp` in clock.rs): `real` is
// the real time (ms since the epoch) it was done at, which a new document's
// replay takes as its moment; `seq` its number, increasing: a clock skips
// what it did already (a window a new document keeps runs the replay again). The answer is `{status: 'done', now}` or
// `{status: 'not_installed' | 'installed' | 'past' | 'runaway', ...}`.

// At most this many timers fired by one `run_for` or `fast_forward`: a timer
// that keeps rescheduling itself at 0 ms would otherwise hold the page.
const HJC_MAX_FIRED = 100000;

function hjClock(win) {
  const RealDate = win.Date;
  const realNow = RealDate.now.bind(RealDate);
  const perf = win.performance;
  const realPerf = perf && perf.now ? perf.now.bind(perf) : realNow;
  const realSetTimeout = win.setTimeout.bind(win);
  const realClearTimeout = win.clearTimeout.bind(win);
  const s = {
    ticksBase: 0,
    realBase: realNow(),
    paused: false,
    wallOffset: realNow(),
    fixed: null,
    perf0: realPerf(),
    perfTicks0: 0,
    timers: new Map(),
    nextId: 1,
    wake: null,
    fired: 0,
    seq: 0,
  };

  function ticks() {
    return s.paused ? s.ticksBase : s.ticksBase + (realNow() - s.realBase);
  }
  function setTicks(t) {
    s.ticksBase = t;
    s.realBase = realNow();
  }
  function wall() {
    return s.fixed !== null ? s.fixed : s.wallOffset + ticks();
  }
  function perfNow() {
    return s.perf0 + (ticks() - s.perfTicks0);
  }

  // ---- timers ----

  function add(kind, callback, delay, args, interval) {
    const id = s.nextId++;
    delay = Math.max(0, Number(delay) || 0);
    s.timers.set(id, {id, kind, callback, args, due: ticks() + delay, interval});
    schedule();
    return id;
  }
  function clear(id) {
    if (s.timers.delete(Number(id))) schedule();
  }
  function earliest(limit) {
    let first = null;
    for (const t of s.timers.values()) {
      if (t.due > limit) continue;
      if (!first || t.due < first.due || (t.due === first.due && t.id < first.id)) first = t;
    }
    return first;
  }
  function fire(t) {
    s.fired++;
    if (t.interval === null) s.timers.delete(t.id);
    else t.due = Math.max(t.due, ticks()) + t.interval;
    try {
      if (t.kind === 'raf') t.callback.call(win, perfNow());
      else if (t.kind === 'idle') t.callback.call(win, {didTimeout: false, timeRemaining: () => 0});
      else if (typeof t.callback === 'function') t.callback.apply(win, t.args);
      else new win.Function(String(t.callback))();
    } catch (e) {
      // Reported as an uncaught error of the page, as a real timer's is.
      realSetTimeout(() => { throw e; }, 0);
    }
  }
  // Fires, in order, every timer due by `limit` (ticks).
  function fireDue(limit) {
    let t;
    while ((t = earliest(limit))) {
      if (s.fired >= HJC_MAX_FIRED) return false;
      if (t.due > ticks()) setTicks(t.due);
      fire(t);
    }
    return true;
  }
  // The real timer that wakes the clock when the earliest timer is due.
  function schedule() {
    if (s.wake !== null) realClearTimeout(s.wake);
    s.wake = null;
    if (s.paused || s.timers.size === 0) return;
    const first = earliest(Infinity);
    const wait = Math.min(Math.max(0, first.due - ticks()), 0x7fffffff);
    s.wake = realSetTimeout(() => {
      s.wake = null;
      s.fired = 0;
      fireDue(ticks());
      schedule();
    }, wait);
  }

  // ---- the page's globals ----

  // The real ones, for the injected engine's waits (engine.js's `hjeReal`).
  if (!win.__harshjudgeReal) {
    const real = {
      setTimeout: realSetTimeout,
      clearTimeout: realClearTimeout,
      requestAnimationFrame: win.requestAnimationFrame ? win.requestAnimationFrame.bind(win) : null,
      now: realPerf,
    };
    Object.defineProperty(win, '__harshjudgeReal', {value: real, configurable: false, enumerable: false});
  }

  function FakeDate(...args) {
    if (!new.target) return new RealDate(wall()).toString();
    if (args.length === 0) return Reflect.construct(RealDate, [wall()], new.target);
    return Reflect.construct(RealDate, args, new.target);
  }
  FakeDate.prototype = RealDate.prototype;
  FakeDate.now = function now() { return wall(); };
  FakeDate.parse = RealDate.parse;
  FakeDate.UTC = RealDate.UTC;
  FakeDate.toString = function toString() { return RealDate.toString(); };
  win.Date = FakeDate;
  if (perf) perf.now = function now() { return perfNow(); };
  // Intl.DateTimeFormat's format() and formatToParts() without a date read
  // the clock too.
  const dtf = win.Intl && win.Intl.DateTimeFormat && win.Intl.DateTimeFormat.prototype;
  const formatGetter = dtf && Object.getOwnPropertyDescriptor(dtf, 'format');
  if (formatGetter && formatGetter.get) {
    Object.defineProperty(dtf, 'format', {
      configurable: true,
      get() {
        const real = formatGetter.get.call(this);
        return (date) => real(date === undefined ? wall() : date);
      },
    });
  }
  if (dtf && dtf.formatToParts) {
    const realParts = dtf.formatToParts;
    dtf.formatToParts = function formatToParts(date) {
      return realParts.call(this, date === undefined ? wall() : date);
    };
  }
  win.setTimeout = function setTimeout(callback, delay, ...args) {
    return add('timeout', callback, delay, args, null);
  };
  win.setInterval = function setInterval(callback, delay, ...args) {
    return add('interval', callback, delay, args, Math.max(1, Number(delay) || 0));
  };
  win.clearTimeout = clear;
  win.clearInterval = clear;
  if (win.requestAnimationFrame) {
    win.requestAnimationFrame = function requestAnimationFrame(callback) {
      const now = ticks();
      return add('raf', callback, 16 - (now % 16), [], null);
    };
    win.cancelAnimationFrame = clear;
  }
  if (win.requestIdleCallback) {
    win.requestIdleCallback = function requestIdleCallback(callback, options) {
      const timeout = options && options.timeout > 0 ? Math.min(options.timeout, 50) : 50;
      return add('idle', callback, timeout, [], null);
    };
    win.cancelIdleCallback = clear;
  }

  // ---- operations ----

  // Brings a replayed operation's moment: ticks as they were at `real`.
  function at(real) {
    if (!s.paused) {
      s.ticksBase += real - s.realBase;
      s.realBase = real;
    }
  }
  function forward(ms, once) {
    s.fired = 0;
    const target = ticks() + ms;
    if (once) {
      setTicks(target);
      for (const t of Array.from(s.timers.values()).filter((t) => t.due <= target)) {
        if (s.timers.has(t.id) && s.fired < HJC_MAX_FIRED) fire(t);
      }
    } else if (!fireDue(target)) {
      schedule();
      return {status: 'runaway', fired: s.fired};
    }
    if (ticks() < target) setTicks(target);
    schedule();
    return s.fired >= HJC_MAX_FIRED ? {status: 'runaway', fired: s.fired} : null;
  }

  const controller = {
    // `op` done now (`replay`: at `op.real`, in a document starting).
    run(op, replay) {
      if (replay && op.seq <= s.seq) return {status: 'done', now: wall()};
      if (replay) at(op.real);
      switch (op.op) {
        case 'install':
          setTicks(0);
          if (replay) s.realBase = op.real;
          s.wallOffset = op.time === null || op.time === undefined ? (replay ? op.real : realNow()) : op.time;
          break;
        case 'fast_forward':
        case 'run_for': {
          const r = forward(op.ms, op.op === 'fast_forward');
          if (r) return r;
          break;
        }
        case 'pause_at': {
          // One read of the clock: a millisecond passing between two would
          // stop it one late.
          const t = ticks();
          const now = s.wallOffset + t;
          if (op.time < now && !replay) return {status: 'past', now};
          setTicks(t);
          s.paused = true;
          const r = forward(Math.max(0, op.time - now), true);
          if (r) return r;
          break;
        }
        case 'resume':
          if (s.paused) {
            s.realBase = replay ? op.real : realNow();
            s.paused = false;
          }
          break;
        case 'set_fixed_time':
          s.fixed = op.time;
          break;
        case 'set_system_time':
          s.wallOffset = op.time - ticks();
          s.fixed = null;
          break;
        default:
          return {status: 'unknown', op: String(op.op)};
      }
      s.seq = Math.max(s.seq, op.seq);
      if (replay) {
        // A new document's performance.now() starts where its own began.
        s.perf0 = realPerf();
        s.perfTicks0 = ticks();
      }
      schedule();
      return {status: 'done', now: wall()};
    },
  };
  Object.defineProperty(win, '__harshjudgeClock', {value: controller, configurable: false, enumerable: false});
  return controller;
}

// The same-origin frames of `win` (a cross-origin one runs its own init
// scripts, and is not reachable from here).
function hjClockFrames(win) {
  const out = [];
  for (let i = 0; i < win.frames.length; i++) {
    try {
      const f = win.frames[i];
      if (f.document) out.push(f);
    } catch (e) {
      // Cross-origin.
    }
  }
  return out;
}

// `op` in `win` and its same-origin frames; the top document's answer.
// `replay`: a new document replaying the log (its frames replay their own).
function hjClockRun(win, op, replay) {
  let clock = win.__harshjudgeClock;
  if (op.op === 'install') {
    if (clock) return replay ? {status: 'done', now: win.Date.now()} : {status: 'installed'};
    clock = hjClock(win);
  } else if (!clock) {
    return {status: 'not_installed'};
  }
  const answer = clock.run(op, replay);
  if (!replay && answer.status === 'done') {
    for (const f of hjClockFrames(win)) {
      if (op.op !== 'install' || !f.__harshjudgeClock) hjClockRun(f, op, false);
    }
  }
  return answer;
}
