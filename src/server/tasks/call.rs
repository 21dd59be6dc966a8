//! `tools/call` on the task path: the handler runs, and its call becomes a task when it does
//! not answer at once.

use serde_json::{Map, Value};
use std::cell::RefCell;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::rc::Rc;
use std::task::Poll;

use crate::protocol::{ErrorObject, ProtocolVersion};
use crate::server::call::{Call, Reply};
use crate::server::cancel::CancellationToken;
use crate::server::context::{RequestContext, TaskHook};
use crate::server::engine::Server;
use crate::server::error::ServerError;
use crate::server::futures::join_all;
use crate::server::handler::HandlerError;
use crate::server::input_required::{self, Inputs, MAX_ROUNDS};
use crate::server::registry::Tool;
use crate::server::runtime::LocalBoxFuture;
use crate::server::shape;

use super::link::TaskLink;
use super::store::JobEnd;
use super::{declares_tasks, missing_extension, Answer, TaskSupport};

// ---- tools/call ------------------------------------------------------------------------------

/// Whether a call of `tool` in version `v` may become a task: the tool has task support and
/// the version has extensions (then the client's opting in decides: [`tools_call`]).
pub(crate) fn may_run_as_task(tool: &Tool, v: ProtocolVersion) -> bool {
    tool.def.task_support != TaskSupport::Forbidden && v.has_extensions()
}

/// `tools/call` on the task path, or `None` when the call is not task-eligible: a tool
/// without task support, a version without extensions, or (for an optional tool) a client
/// that did not opt in. Called with the tool found and its arguments validated.
pub(crate) fn tools_call(
    call: &Call,
    v: ProtocolVersion,
    tool: &Rc<Tool>,
    args: &Rc<Value>,
    ctx: &RequestContext,
) -> Option<Reply> {
    if !may_run_as_task(tool, v) {
        return None;
    }
    let support = tool.def.task_support;
    if !declares_tasks(ctx.client_capabilities()) {
        return match support {
            TaskSupport::Required => Some(Reply::Now(Err(missing_extension()))),
            _ => None,
        };
    }
    let server = call.session.server().clone();
    let limits = server.config().tasks.clone();
    let working = server.task_store().working();
    if working >= limits.max_working {
        return Some(Reply::Now(Err(ServerError::LimitExceeded {
            what: "Tasks working at once",
            limit: limits.max_working,
            actual: None,
        })));
    }
    let link = Rc::new(TaskLink {
        server: server.downgrade(),
        id: RefCell::new(None),
        created: CancellationToken::new(),
        cancel: CancellationToken::new(),
        client_capabilities: ctx.client_capabilities().clone(),
        early_message: RefCell::new(None),
    });
    // Until the task exists, the request's cancellation is the handler's.
    {
        let link = link.clone();
        ctx.cancel.on_cancel(move |why| {
            if link.id().is_none() {
                link.cancel.cancel(why);
            }
        });
    }
    let mut task_ctx = ctx.clone();
    task_ctx.cancel = link.cancel.clone();
    task_ctx.progress = None;
    task_ctx.task = Some(link.clone());
    let job = run_job(
        server.clone(),
        tool.clone(),
        args.clone(),
        task_ctx,
        link.clone(),
    );
    let key = server.state_key().clone();
    let caps = ctx.client_capabilities().clone();
    Some(Reply::Later(Box::pin(async move {
        let mut job = Some(job);
        let mut turn = server.runtime().sleep(0);
        let mut created = link.created.cancelled();
        // The handler answers at once, or the call becomes a task (SEP-2663 "Task Creation").
        let first = poll_fn(|cx| {
            if let Some(j) = job.as_mut() {
                if let Poll::Ready(end) = j.as_mut().poll(cx) {
                    job = None;
                    return Poll::Ready(Some(end));
                }
            }
            if link.id().is_some() || Pin::new(&mut created).poll(cx).is_ready() {
                return Poll::Ready(None);
            }
            if turn.as_mut().poll(cx).is_ready() {
                return Poll::Ready(None);
            }
            Poll::Pending
        })
        .await;
        let Some(mut job) = job.take().filter(|_| first.is_none()) else {
            return answer_now(first.expect("finished"), v, &caps, &key);
        };
        let id = match link.ensure() {
            Ok(id) => id,
            // No room for a task after all: the request waits for the handler instead.
            Err(_) => return answer_now(job.as_mut().await, v, &caps, &key),
        };
        let weak = server.downgrade();
        let finish_id = id.clone();
        server.runtime().spawn(Box::pin(async move {
            let end = job.await;
            if let Some(server) = weak.upgrade() {
                server.finish_task(&finish_id, end, v);
            }
        }));
        server.create_result(&id)
    })))
}

/// The synchronous answer of a call that did not become a task.
pub(super) fn answer_now(
    end: JobEnd,
    v: ProtocolVersion,
    caps: &Value,
    key: &input_required::StateKey,
) -> Result<Value, ServerError> {
    match end {
        JobEnd::Result(m) => Ok(shape::call_tool_result(m, v)),
        JobEnd::Error(e) => Err(e),
        JobEnd::Input(ir) => {
            if let Some(required) = input_required::missing_capabilities(&ir, caps) {
                return Err(ServerError::MissingClientCapability { required });
            }
            Ok(input_required::wire_result(&ir, key))
        }
    }
}

/// Runs the handler: once, and again after each round of input a task gathered.
pub(super) fn run_job(
    server: Server,
    tool: Rc<Tool>,
    args: Rc<Value>,
    ctx: RequestContext,
    link: Rc<TaskLink>,
) -> LocalBoxFuture<'static, JobEnd> {
    Box::pin(async move {
        let mut ctx = ctx;
        for _ in 0..MAX_ROUNDS {
            let outcome = tool
                .def
                .handler
                .call_shared(args.clone(), ctx.clone())
                .await;
            let value = match outcome {
                Err(HandlerError {
                    code: Some(code),
                    message,
                    data,
                }) => {
                    let mut e = ErrorObject::new(code, message);
                    if let Some(d) = data {
                        e = e.with_data(d);
                    }
                    return JobEnd::Error(ServerError::Rpc(e));
                }
                other => server.tool_outcome(&tool, other),
            };
            if !input_required::is_input_required(&Value::Object(value.clone())) {
                return JobEnd::Result(value);
            }
            let ir = match input_required::parse_result(&Value::Object(value)) {
                Ok(ir) => ir,
                Err(e) => {
                    return JobEnd::Error(ServerError::Internal(format!(
                        "Tool {} returned a malformed input_required result: {e}",
                        tool.def.name
                    )))
                }
            };
            let Some(id) = link.id() else {
                return JobEnd::Input(ir);
            };
            // Inside a task, the requests become the task's inputRequests; the handler runs
            // again with the answers once every one has come.
            if let Some(required) =
                input_required::missing_capabilities(&ir, &link.client_capabilities)
            {
                return JobEnd::Error(ServerError::MissingClientCapability { required });
            }
            let mut asks = Vec::new();
            for (k, r) in &ir.requests {
                match server.ask_in_task(&id, Some(k), r.clone()) {
                    Ok(slot) => asks.push(Box::pin(slot) as LocalBoxFuture<'static, Answer>),
                    Err(e) => return JobEnd::Error(e),
                }
            }
            let mut responses = Map::new();
            for ((k, _), answer) in ir.requests.iter().zip(join_all(asks).await) {
                match answer {
                    Ok(v) => {
                        responses.insert(k.clone(), v);
                    }
                    Err(e) => return JobEnd::Error(ServerError::Rpc(e)),
                }
            }
            ctx.set_inputs(Inputs {
                responses: Some(responses),
                request_state: ir.request_state,
            });
        }
        JobEnd::Error(ServerError::Internal(format!(
            "Tool {} still asked for input after {MAX_ROUNDS} rounds",
            tool.def.name
        )))
    })
}
