//! Listeners, observers and timers as drop-guards: what is added to a JS object, observed
//! or scheduled is removed, disconnected or cleared when the Rust value is dropped (never
//! leaked with `forget()`).

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;

use super::{call, global};

type Callback = Closure<dyn FnMut(JsValue, JsValue)>;

thread_local! {
    /// `polyfill/src/gates.js`'s `__mcpMessageGate`, from the engine's config
    /// ([`use_message_gate`]); without it a gated listener is added as it is.
    static MESSAGE_GATE: super::Helper = const { super::Helper::new("messageGate") };
}

/// Takes the message gate maker from the engine's `config.messageGate` (absent: listeners are
/// not gated).
pub fn use_message_gate(config: &JsValue) {
    MESSAGE_GATE.with(|g| g.take(config));
}

/// The first checks of a `message` event, made in JS before the listener is called (see
/// `polyfill/src/gates.js`, where every gate on one target shares one `message` listener):
/// the event's data is an object with each of `fields` (`(key, value)`; `None` stands for any
/// string) and, when `source` is given, its source is that window. The listener must drop
/// every event the gate drops. A gated listener is called `(event, data)` with the data the
/// gate checked, an object; ungated (no gate maker in the config), it is called `(event)` and
/// its second argument is `undefined`, so a listener that is handed an object may take these
/// checks as made, and one handed `undefined` makes them.
pub struct MessageGate<'a> {
    /// The window the event must come from, when given.
    pub source: Option<&'a JsValue>,
    /// The data's fields to check: `(key, value)`, `None` for any string.
    pub fields: &'a [(&'static str, Option<&'a JsValue>)],
}

/// A listener added with `target.<add>(type, fn)`; removed with `<remove>` on drop.
pub struct Listener {
    target: JsValue,
    remove: &'static str,
    event: Option<String>,
    /// Added for the capture phase (`addEventListener(type, fn, true)`).
    capture: bool,
    callback: Callback,
    /// For a gated listener: the function that takes its gate off the target's shared
    /// listener (the gate maker added it there, in place of adding `callback`).
    ungate: Option<Function>,
}

impl Listener {
    /// `target.addEventListener(event, f)` / `removeEventListener`.
    pub fn dom(
        target: &JsValue,
        event: &str,
        f: impl FnMut(JsValue, JsValue) + 'static,
    ) -> Result<Listener, JsValue> {
        Listener::with(
            target,
            "addEventListener",
            "removeEventListener",
            Some(event),
            f,
        )
    }

    /// [`Listener::dom`] for `message` events, behind `gate` (when the core has the gate maker).
    pub fn message(
        target: &JsValue,
        gate: MessageGate,
        f: impl FnMut(JsValue, JsValue) + 'static,
    ) -> Result<Listener, JsValue> {
        Listener::add(
            target,
            "addEventListener",
            "removeEventListener",
            Some("message"),
            false,
            Some(gate),
            Box::new(f),
        )
    }

    /// `target.addEventListener(event, f, true)` / `removeEventListener(event, f, true)`:
    /// the listener runs in the capture phase, before the listeners of the event's target.
    pub fn dom_capture(
        target: &JsValue,
        event: &str,
        f: impl FnMut(JsValue, JsValue) + 'static,
    ) -> Result<Listener, JsValue> {
        Listener::add(
            target,
            "addEventListener",
            "removeEventListener",
            Some(event),
            true,
            None,
            Box::new(f),
        )
    }

    /// `target.<add>(event?, f)` / `target.<remove>(event?, f)`.
    pub fn with(
        target: &JsValue,
        add: &'static str,
        remove: &'static str,
        event: Option<&str>,
        f: impl FnMut(JsValue, JsValue) + 'static,
    ) -> Result<Listener, JsValue> {
        Listener::add(target, add, remove, event, false, None, Box::new(f))
    }

    /// The listener function (to add elsewhere too: the caller takes it off there).
    pub fn function(&self) -> &JsValue {
        self.callback.as_ref()
    }

    /// Every listener is added here, its callback boxed by the caller: what follows is
    /// compiled once, not for every listener's closure type.
    fn add(
        target: &JsValue,
        add: &'static str,
        remove: &'static str,
        event: Option<&str>,
        capture: bool,
        gate: Option<MessageGate>,
        f: Box<dyn FnMut(JsValue, JsValue)>,
    ) -> Result<Listener, JsValue> {
        let callback = Callback::wrap(f);
        let ungate = gate.and_then(|g| gated(target, &callback, g));
        let listener = Listener {
            target: target.clone(),
            remove,
            event: event.map(str::to_string),
            capture,
            callback,
            ungate,
        };
        if listener.ungate.is_none() {
            listener.call(add)?;
        }
        Ok(listener)
    }

    /// `target.<method>(event?, callback, capture?)`.
    fn call(&self, method: &'static str) -> Result<JsValue, JsValue> {
        let event = self.event.as_deref().map(JsValue::from_str);
        let capture = JsValue::TRUE;
        let mut args: Vec<&JsValue> = Vec::with_capacity(3);
        args.extend(event.as_ref());
        args.push(self.callback.as_ref());
        if self.capture {
            args.push(&capture);
        }
        call(&self.target, method, &args)
    }
}

/// `callback` behind `gate` on `target`'s `message` events, by the core's gate maker; the
/// function taking it off again. `None` without a gate maker (or when it failed): the caller
/// adds `callback` itself.
fn gated(target: &JsValue, callback: &Callback, gate: MessageGate) -> Option<Function> {
    let maker = MESSAGE_GATE.with(|g| g.with(Function::clone))?;
    let fields: Array = gate
        .fields
        .iter()
        .map(|(k, v)| Array::of2(&super::name(k), v.unwrap_or(&JsValue::UNDEFINED)))
        .collect();
    let args = Array::of4(
        target,
        callback.as_ref(),
        gate.source.unwrap_or(&JsValue::UNDEFINED),
        &fields,
    );
    maker
        .apply(&JsValue::UNDEFINED, &args)
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
}

impl Drop for Listener {
    fn drop(&mut self) {
        match &self.ungate {
            Some(ungate) => {
                let _ = ungate.call0(&JsValue::UNDEFINED);
            }
            None => {
                let _ = self.call(self.remove);
            }
        }
    }
}

/// An observer (`MutationObserver` and the like: `new Class(callback)`, `observe(target,
/// options)`, `disconnect()`) calling back into Rust with each batch of records; disconnected
/// on drop.
pub struct Observer {
    observer: JsValue,
    _callback: Closure<dyn FnMut(JsValue)>,
}

impl Observer {
    /// `new class(f)`, not yet observing anything; `f` gets each batch's records.
    pub fn new(class: &Function, f: impl FnMut(JsValue) + 'static) -> Result<Observer, JsValue> {
        let callback = Closure::<dyn FnMut(JsValue)>::new(f);
        let observer = Reflect::construct(class, &Array::of1(callback.as_ref()))?;
        Ok(Observer {
            observer,
            _callback: callback,
        })
    }

    /// The observer object (to observe more targets from JS).
    pub fn object(&self) -> &JsValue {
        &self.observer
    }

    /// `observer.observe(target, options)`.
    pub fn observe(&self, target: &JsValue, options: &JsValue) -> Result<(), JsValue> {
        call(&self.observer, "observe", &[target, options]).map(|_| ())
    }
}

impl Drop for Observer {
    fn drop(&mut self) {
        let _ = call(&self.observer, "disconnect", &[]);
    }
}

/// A `setInterval` / `setTimeout` timer, cleared on drop.
pub struct Timer {
    id: JsValue,
    clear: &'static str,
    _callback: Closure<dyn FnMut()>,
}

impl Timer {
    /// Calls `f` every `ms` milliseconds until dropped.
    pub fn interval(ms: f64, f: impl FnMut() + 'static) -> Result<Timer, JsValue> {
        Timer::start("setInterval", "clearInterval", ms, f)
    }

    /// Calls `f` once after `ms` milliseconds, unless dropped first.
    pub fn timeout(ms: f64, f: impl FnMut() + 'static) -> Result<Timer, JsValue> {
        Timer::start("setTimeout", "clearTimeout", ms, f)
    }

    fn start(
        set: &'static str,
        clear: &'static str,
        ms: f64,
        f: impl FnMut() + 'static,
    ) -> Result<Timer, JsValue> {
        let callback = Closure::<dyn FnMut()>::new(f);
        let id = call(&global(), set, &[callback.as_ref(), &JsValue::from_f64(ms)])?;
        Ok(Timer {
            id,
            clear,
            _callback: callback,
        })
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        let _ = call(&global(), self.clear, &[&self.id]);
    }
}
