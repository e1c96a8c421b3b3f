//! The child side of the protocol for budgetlab's own strategies: `budgetlab finalize --serve` reads the
//! handshake and then one request a line, finalizes each with a built-in strategy and answers it, until the end
//! of its input.
//!
//! A request it cannot read is answered with `{"id", "error"}` (the harness then stops with that message) and the
//! serving goes on; only a handshake of another protocol, or a failure to read the input or write the output,
//! ends it with an error.

use std::io::{BufRead, Write};

use serde_json::Value;

use crate::error::Error;
use crate::finalize::Finalizer;
use crate::persist::{ArtifactStore, FaultyStore};

use super::protocol::{
    ErrorResponse, Hello, HelloReply, OwnedRequest, PersistedRecord, Response, CONTEXT,
    PERSIST_FAULTS, PROTOCOL, VERSION,
};

/// What a serving session did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Served {
    /// Requests answered with a response.
    pub answered: u64,
    /// Requests answered with an error.
    pub refused: u64,
}

/// Serves `finalizer` on `input` and `output` until the end of `input`. `store_for` makes the backend of one
/// request from its artifact directory.
pub fn serve(
    finalizer: &dyn Finalizer,
    store_for: &dyn Fn(&str) -> Box<dyn ArtifactStore>,
    mut input: impl BufRead,
    mut output: impl Write,
) -> Result<Served, Error> {
    let mut line = Vec::new();
    let mut served = Served::default();
    if !read_line(&mut input, &mut line)? {
        return Ok(served);
    }
    let hello: Hello = serde_json::from_slice(&line).map_err(|e| Error::json("<stdin>", &e))?;
    if hello.protocol != PROTOCOL {
        return Err(Error::invalid(
            "handshake protocol",
            hello.protocol,
            format!("budgetlab serves {PROTOCOL} version {VERSION}"),
        ));
    }
    // Another version is answered with this one's: the harness then decides whether to go on.
    let reply = HelloReply {
        protocol: PROTOCOL.into(),
        version: VERSION,
        name: finalizer.name().to_string(),
        capabilities: vec![PERSIST_FAULTS.into(), CONTEXT.into()],
    };
    write_line(&mut output, &reply)?;
    while read_line(&mut input, &mut line)? {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let request = serde_json::from_slice::<Value>(&line)
            .map_err(|e| (None, Error::json("request", &e).to_string()))
            .and_then(OwnedRequest::from_value);
        let request = match request {
            Ok(request) => request,
            Err((id, message)) => {
                served.refused += 1;
                write_line(
                    &mut output,
                    &ErrorResponse {
                        id,
                        error: &message,
                    },
                )?;
                continue;
            }
        };
        let store = store_for(&request.artifact_dir);
        let mut store: Box<dyn ArtifactStore> = match &request.persist_faults {
            Some(faults) => Box::new(FaultyStore::from_faults(store, faults)),
            None => store,
        };
        let outcome = finalizer.finalize(request.batch, &request.ctx, store.as_mut());
        let persisted = outcome
            .persisted
            .iter()
            .map(|a| PersistedRecord {
                call_id: &a.call_id,
                tool_name: &a.tool_name,
                content: &a.content,
                path: a.path.as_deref(),
                entry: a.entry,
            })
            .collect();
        write_line(
            &mut output,
            &Response {
                id: request.id,
                entries: &outcome.batch,
                persisted,
            },
        )?;
        served.answered += 1;
    }
    Ok(served)
}

/// Reads one line into `line` (without its newline); `false` at the end of the input.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> Result<bool, Error> {
    line.clear();
    let n = input
        .read_until(b'\n', line)
        .map_err(|e| Error::io("<stdin>", e))?;
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    Ok(n > 0)
}

fn write_line(output: &mut impl Write, message: &impl serde::Serialize) -> Result<(), Error> {
    let stdout = |e: std::io::Error| Error::io("<stdout>", e);
    serde_json::to_writer(&mut *output, message).map_err(|e| stdout(e.into()))?;
    output.write_all(b"\n").map_err(stdout)?;
    output.flush().map_err(stdout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::persist::MemoryStore;
    use crate::StrategyName;

    fn memory(dir: &str) -> Box<dyn ArtifactStore> {
        Box::new(MemoryStore::new(dir))
    }

    fn session(input: &str) -> (Result<Served, Error>, Vec<Value>) {
        let reference = StrategyName::REFERENCE.build();
        let mut out = Vec::new();
        let served = serve(reference.as_ref(), &memory, input.as_bytes(), &mut out);
        let lines = out
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        (served, lines)
    }

    #[test]
    fn answers_the_handshake_and_each_request_in_order() {
        let output = "x".repeat(2_000);
        let request = |id: u64, faults: &str| {
            format!(
                "{{\"id\":{id},\"boundary\":\"finalize\",\"budget\":500,\"contextWindowTokens\":null,\
                 \"artifactDir\":\"arts\",\"reminders\":[],{faults}\"batch\":[{{\"callId\":\"c1\",\
                 \"toolName\":\"shell\",\"responseParts\":[{{\"functionResponse\":{{\"name\":\"shell\",\
                 \"response\":{{\"output\":\"{output}\"}}}}}}]}}]}}\n"
            )
        };
        let input = format!(
            "{{\"protocol\":\"budgetlab-finalizer\",\"version\":1}}\n{}\n{}{}",
            request(1, ""),
            request(
                2,
                "\"persistFaults\":{\"ids\":[\"c1\"],\"ratePpm\":0,\"salt\":\"0000000000000000\"},"
            ),
            "not json\n"
        );
        let (served, lines) = session(&input);
        assert_eq!(
            served.unwrap(),
            Served {
                answered: 2,
                refused: 1
            }
        );
        assert_eq!(
            lines[0],
            serde_json::json!({"protocol": "budgetlab-finalizer", "version": 1, "name": "reference",
                "capabilities": ["persist-faults", "context"]})
        );
        assert_eq!(lines[1]["id"], 1);
        assert_eq!(lines[1]["persisted"][0]["path"], "arts/c1.txt");
        assert_eq!(lines[1]["persisted"][0]["entry"], 0);
        assert_eq!(lines[1]["persisted"][0]["content"], output.as_str());
        assert_eq!(
            lines[1]["entries"][0]["persistedOutputFiles"][0],
            "arts/c1.txt"
        );
        // The injected failure: attempted, failed, reported with a null path.
        assert_eq!(lines[2]["id"], 2);
        assert_eq!(lines[2]["persisted"][0]["path"], Value::Null);
        assert_eq!(lines[3]["id"], Value::Null);
        assert!(lines[3]["error"]
            .as_str()
            .unwrap()
            .starts_with("request: invalid JSON at line 1, column 2"));
    }

    #[test]
    fn another_protocol_is_refused_and_no_input_is_no_session() {
        let (served, lines) = session("{\"protocol\":\"other\",\"version\":1}\n");
        assert!(served
            .unwrap_err()
            .to_string()
            .starts_with("invalid handshake protocol \"other\""));
        assert!(lines.is_empty());
        let (served, lines) = session("");
        assert_eq!(served.unwrap(), Served::default());
        assert!(lines.is_empty());
    }
}
