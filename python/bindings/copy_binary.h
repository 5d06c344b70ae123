// One Python value as a field of PostgreSQL's binary COPY format, for a column of a known type OID (GIL held).
#pragma once

#include <Python.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace slipstream::python {

/// A growing output buffer written through a raw pointer: room(n) makes space for n more bytes, put* write them.
/// `buf.size()` is the space held (grown by doubling), `len` what is written; finish() trims `buf` to `len`.
struct CopyOut {
    std::string& buf;
    std::size_t len = 0;

    char* room(std::size_t n) {
        if (len + n > buf.size()) grow(len + n);
        return buf.data() + len;
    }
    void grow(std::size_t need);
    void put16(std::uint16_t v) {
        v = __builtin_bswap16(v);
        std::memcpy(room(2), &v, 2);
        len += 2;
    }
    void put32(std::uint32_t v) {
        v = __builtin_bswap32(v);
        std::memcpy(room(4), &v, 4);
        len += 4;
    }
    void put64(std::uint64_t v) {
        v = __builtin_bswap64(v);
        std::memcpy(room(8), &v, 8);
        len += 8;
    }
    void put(const char* data, std::size_t n) {
        std::memcpy(room(n), data, n);
        len += n;
    }
    void finish() { buf.resize(len); }
};

/// What writing one field did.
enum class Field : std::uint8_t {
    kOk,
    kError,     // a Python exception is set
    kMismatch,  // the value is not one the column's binary form takes from Python (nothing written)
};

/// Whether the column type `oid` has a binary form here: bool, int2/4/8, float4/8, numeric, text, varchar, bpchar,
/// name, bytea, json, jsonb, uuid, date, time, timestamp, timestamptz, interval.
bool has_binary_form(std::uint32_t oid);

/// The type's name ("int4"), for messages; "oid N" for types without a binary form here.
std::string binary_type_name(std::uint32_t oid);

/// The Python values the binary form of `oid` takes, for messages ("int", "datetime with tzinfo", ...).
const char* binary_python_types(std::uint32_t oid);

/// Writes `obj` (not None) as one field (its length, then its bytes) for a column of type `oid`
/// (has_binary_form). Takes: bool for bool; int (in the column's range) for int2/4/8; float or int for float4/8;
/// Decimal or int (64-bit) for numeric (NaN and infinities included); str for the text kinds, json and jsonb
/// (without NUL); bytes for bytea; uuid.UUID for uuid; date (not datetime) for date; time without tzinfo for time;
/// datetime without tzinfo for timestamp; datetime with tzinfo for timestamptz (its UTC instant); timedelta for
/// interval. Anything else: kMismatch, `out` unchanged.
Field write_binary_field(PyObject* obj, std::uint32_t oid, CopyOut& out);

}  // namespace slipstream::python
