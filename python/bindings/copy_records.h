// copy_records_to_table's data: Python records straight to PostgreSQL's COPY text or binary format (GIL held).
#pragma once

#include <Python.h>

#include <cstdint>
#include <string>
#include <vector>

#include "copy_binary.h"

namespace slipstream::python {

/// Encodes records into COPY data a piece at a time, so that a COPY can send what is made while the rest waits
/// (bounded memory for any number of records). A record is a tuple or list read by position; with `columns` (a
/// tuple of names, or None) a record that is an instance of `by_name_types` (a type or tuple of types: Mapping,
/// Record) is read by those names; anything else by position. A record must give `width` values (else a
/// ValueError). Errors name the record ("record 3: ...").
///
/// With `oids` empty the format is COPY text: None, bool, int (64-bit), float and str are written directly, other
/// values as query parameters are converted (db_values.h). Otherwise it is the binary format for columns of those
/// type OIDs (copy_binary.h; each must have_binary_form), header first and end marker last. A value the binary form
/// does not take is a mismatch: not `strict`, encode() answers kMismatch (what was made is to be discarded: the
/// caller sends COPY text instead); `strict`, a TypeError naming the record and the column (`names`, else its
/// number), the type given and the types taken.
class CopyRecordsEncoder {
  public:
    CopyRecordsEncoder(Py_ssize_t width, PyObject* columns, PyObject* by_name_types, std::vector<std::uint32_t> oids,
                       std::vector<std::string> names, bool strict);

    /// Appends the next records of `source` to `out` until `out` holds at least `max_bytes` or the records end
    /// (ended()). `source` is a list or tuple, read from index records(), or an iterator (PyIter_Next). kOk, kError
    /// (the exception set) or kMismatch.
    Field encode(PyObject* source, std::size_t max_bytes, std::string& out);
    bool ended() const { return ended_; }
    /// The records encoded so far.
    std::size_t records() const { return records_; }
    bool binary() const { return !oids_.empty(); }

  private:
    Field record(PyObject* rec, std::string& out, CopyOut& bin);
    Field field(PyObject* value, Py_ssize_t column, std::string& out, CopyOut& bin);
    void mismatch_error(PyObject* value, Py_ssize_t column) const;

    Py_ssize_t width_;
    PyObject* columns_;  // borrowed: the caller keeps them alive while it encodes
    PyObject* by_name_types_;
    std::vector<std::uint32_t> oids_;
    std::vector<std::string> names_;
    bool strict_;
    bool started_ = false;
    bool ended_ = false;
    std::size_t records_ = 0;
};

/// All of `records` as COPY text into `out` (CopyRecordsEncoder with no oids). False with the Python exception set.
bool encode_copy_records(PyObject* records, Py_ssize_t width, PyObject* columns, PyObject* by_name_types,
                         std::string& out);

/// All of `records` in the binary COPY format for columns of type `oids`: 1 done; 0 not possible, `out` to be
/// discarded (a column type without a binary form here, or a value the form does not take); -1 a Python error, set
/// and naming the record.
int encode_copy_records_binary(PyObject* records, Py_ssize_t width, PyObject* columns, PyObject* by_name_types,
                               const std::vector<std::uint32_t>& oids, std::string& out);

}  // namespace slipstream::python
