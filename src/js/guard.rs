//! Listeners, observers and timers as drop-guards: what is added to a JS object, observed
//! or scheduled is removed, disconnected or cleared when the Rust value is dropped (never
//! leaked with `forget()`).

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;

use super::{call, global};

type Callback = Closure<dyn FnMut(JsValue, JsValue)>;

/// A listener added with `target.<add>(type, fn)`; removed with `<remove>` on drop.
pub struct Listener {
    target: JsValue,
    remove: &'static str,
    event: Option<String>,
    /// Added for the capture phase (`addEventListener(type, fn, true)`).
    capture: bool,
    callback: Callback,
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
            f,
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
        Listener::add(target, add, remove, event, false, f)
    }

    fn add(
        target: &JsValue,
        add: &'static str,
        remove: &'static str,
        event: Option<&str>,
        capture: bool,
        f: impl FnMut(JsValue, JsValue) + 'static,
    ) -> Result<Listener, JsValue> {
        let listener = Listener {
            target: target.clone(),
            remove,
            event: event.map(str::to_string),
            capture,
            callback: Callback::new(f),
        };
        listener.call(add)?;
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

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.call(self.remove);
    }
}

/// An observer (`MutationObserver` and the like: `new Class(callback)`, `observe(target,
/// options)`, `disconnect()`) calling back into Rust; disconnected on drop.
pub struct Observer {
    observer: JsValue,
    _callback: Closure<dyn FnMut()>,
}

impl Observer {
    /// `new class(f)`, not yet observing anything.
    pub fn new(class: &Function, f: impl FnMut() + 'static) -> Result<Observer, JsValue> {
        let callback = Closure::<dyn FnMut()>::new(f);
        let observer = Reflect::construct(class, &Array::of1(callback.as_ref()))?;
        Ok(Observer {
            observer,
            _callback: callback,
        })
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
    pub fn interval(ms: f64, f: impl FnMut() + 'static) -> Result<Timer, JsValue> {
        Timer::start("setInterval", "clearInterval", ms, f)
    }

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
