/*
 * forge_doors_runtime.h - portable core of the MJOLNIRLobby automatic doors.
 *
 * C11, no heap, no global state, no dependency beyond <stddef.h>,
 * <stdint.h>, <string.h> and <math.h>. Specified by NATIVE.md; the
 * companion file formats are SPEC section 6.
 *
 * SINGLE-HEADER LIBRARY. Every file may include this header for the
 * declarations. Exactly one translation unit of a program defines the
 * functions:
 *
 *     #define FORGE_DOORS_IMPLEMENTATION
 *     #include "forge_doors_runtime.h"
 *
 * All state lives in caller-owned structs (fd_inventory, fd_runtime); the
 * functions touch nothing else, so two runtimes never interfere. An
 * fd_runtime is about 120 KiB: give it static storage or allocate it in the
 * adapter, never on a small stack.
 *
 * UNITS AND FRAMES. Metres, seconds, right-handed, Z up. A door panel's
 * local frame has its origin at the panel's authored bottom centre: the
 * panel occupies x in [-w/2, w/2], y in [-d/2, d/2], z in [0, h] (width,
 * depth, height from doors.txt). The adapter converts Unreal centimetres to
 * metres before calling in. A pose is an origin plus the panel's three
 * local axes expressed in world coordinates (the columns of its rotation).
 *
 * HOW THE GAME ADAPTER CALLS IT (all on the authoritative simulation
 * thread):
 *
 *   static fd_runtime rt;                       // once
 *   fd_runtime_init(&rt);
 *   fd_runtime_report_build(&rt, build_id);     // build allowlist gate
 *   fd_runtime_report_forge(&rt, forge_loaded, forge_api_marker);
 *   fd_runtime_load_inventory(&rt, doors, n, installed, m);  // on change
 *
 *   // world travel, a new session, or a rehost:
 *   fd_runtime_begin_world(&rt, world_instance, FD_ROLE_HOST);
 *   // scenario construction / Revert, before objects exist:
 *   physics = fd_runtime_seed_physics(&rt, tag, len, FD_PLACEMENT_SCENARIO,
 *                                     physics);
 *
 *   // every tick (the adapter's one scan of the native object arrays):
 *   fd_runtime_begin_scan(&rt);
 *   for each door-panel object: fd_runtime_observe_panel(&rt, &obs, &res);
 *   gather obstacles (bipeds, vehicles, crates; crates' body class via
 *       fd_runtime_classify_body)
 *   fd_runtime_step(&rt, tick_number, tick_seconds, obstacles, count);
 *   for (it = 0; fd_runtime_next_update(&rt, &it, &u);)
 *       write u.pose into the live map variant (Forge) or through the
 *       object-transform setter (Slayer);
 *
 *   // Monitor mode and edits:
 *   fd_runtime_enter_monitor(&rt, obstacles, count);
 *   if (fd_runtime_request_edit(&rt, handle, FD_EDIT_GRAB, obstacles, count)
 *       == FD_EDIT_DEFERRED) show(fd_status_text(FD_EDIT_DEFERRED));
 *   fd_runtime_finish_edit(&rt, handle);
 *
 *   // F5 save, on Forge's temporary serialization copy:
 *   if (fd_runtime_save_begin(&rt) != FD_OK) defer the save;
 *   for each entry: fd_runtime_save_project(&rt, handle, entry, &pose);
 *
 *   // a client became host:
 *   fd_runtime_become_host(&rt);
 *
 * Every function that can refuse returns an fd_status; fd_status_text()
 * gives the reason in words.
 *
 * WHAT THE ADAPTER PASSES AS OBSTACLES. Conservative bounding spheres of
 * bipeds, vehicles, crates (with their physics, parenting and cached body
 * class) and any other moving body. Never the static world: it is not
 * tested. Fixed/Phased crates and unparented fixed-only crates may be
 * passed; the runtime ignores them (fd_obstacle_counts).
 *
 * STACK. fd_runtime_step uses about 6 KiB of stack (per-panel scan state
 * and one chunk of filtered obstacles); other functions far less.
 *
 * BUILD ALLOWLIST. FD_SUPPORTED_BUILDS holds the build id strings the
 * adapter reports for supported CU4 builds; the adapter build defines the
 * real ids (the default "CU4" is the id the portable tests use).
 */
#ifndef FORGE_DOORS_RUNTIME_H
#define FORGE_DOORS_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the C ABI and data layout; the module exports it as
 * forge_doors_api_version(). Bump it on any incompatible change. */
#define FD_API_VERSION 1
/* SemVer of the runtime and module; forge_doors.version carries it. */
#define FD_MODULE_VERSION "1.0.0"

#define FD_MAX_DEFINITIONS 256  /* installed door definitions (doors.txt rows) */
#define FD_MAX_ACTIVE_PANELS 128 /* automated panels tracked at once */
#define FD_MAX_REJECTIONS 64    /* rejected rows kept in detail, per file */
#define FD_MAX_TAG 240          /* bytes in a Blam tag path */
#define FD_MAX_NUMBER 40        /* bytes in one number field */
#define FD_BODY_CACHE_SIZE 256  /* body classifications cached per world */
/* Tolerance of the orthonormal-rotation check (NATIVE.md 9). */
#define FD_ROTATION_TOLERANCE 1e-4
/* A pose read back from the map variant that differs from the one the
 * runtime published by more than this (metres, or unitless for axes) is an
 * external authored change. The engine stores single-precision floats. */
#define FD_POSE_TOLERANCE 1e-3
/* Largest accepted tick length; longer steps are refused as absurd. */
#define FD_MAX_TICK_SECONDS 1.0
/* The Forge native utility API marker introduced by MJOLNIRForge 0.4.0. */
#define FD_FORGE_NATIVE_API_MIN 1u

/* Supported game builds (the CU4 family), as the build id strings the
 * adapter reads from the game. The release sets the list in one place, the
 * Makefile's SUPPORTED_BUILDS, which compiles the module with
 * -DFD_SUPPORTED_BUILDS='"a", "b"'; this default (what the portable tests
 * use) matches it, and a Go test keeps them equal. */
#ifndef FD_SUPPORTED_BUILDS
#define FD_SUPPORTED_BUILDS "CU4"
#endif

/* fd_status is every outcome and reason the runtime reports. */
typedef enum fd_status {
    FD_OK = 0,
    FD_ERR_ARGUMENT,          /* a required pointer was NULL */

    /* Whole-file problems (inventory gate). */
    FD_FILE_MISSING,          /* the adapter had no file to pass */
    FD_FILE_BAD_HEADER,       /* first line is not the expected header */

    /* Row rejections (one row, with its line number). */
    FD_ROW_EMPTY,             /* empty line */
    FD_ROW_FIELD_COUNT,       /* wrong number of tab-separated fields */
    FD_ROW_CONTROL_CHAR,      /* a field holds a control character */
    FD_ROW_BAD_TAG,           /* tag is not a valid mjolnir\forge\ path */
    FD_ROW_BAD_NUMBER,        /* not a plain decimal-dot number */
    FD_ROW_TRAVEL_RANGE,      /* travel not in (0, 16] */
    FD_ROW_SPEED_RANGE,       /* speed not in (0, 8] */
    FD_ROW_TRIGGER_RANGE,     /* a trigger size not in (0, 32] */
    FD_ROW_HOLD_RANGE,        /* hold time not in [0, 10] */
    FD_ROW_PANEL_RANGE,       /* a panel dimension not in [0.01, 64] */
    FD_ROW_DUPLICATE_TAG,     /* tag already defined by an earlier row */
    FD_ROW_LIMIT,             /* more than 256 definitions */
    FD_ROW_BAD_PACK_ID,       /* installed.txt: pack id is not a slug */
    FD_ROW_BAD_VERSION,       /* installed.txt: version is not SemVer */
    FD_ROW_BAD_PIECE_ID,      /* installed.txt: piece id invalid */
    FD_ROW_BAD_KIND,          /* installed.txt: kind not block or panel */
    FD_ROW_BAD_CLASS,         /* installed.txt: class path invalid */
    FD_ROW_PACK_MISMATCH,     /* installed.txt: tag/class not under pack */

    /* Gates: automation as a whole is off. */
    FD_GATE_BUILD_UNKNOWN,    /* the adapter has not reported the build */
    FD_GATE_BUILD_UNSUPPORTED,/* game build not in the allowlist */
    FD_GATE_FORGE_WAITING,    /* no native Forge module loaded yet */
    FD_GATE_FORGE_OLD,        /* Forge loaded without a compatible marker */
    FD_GATE_INVENTORY_MISSING,/* no inventory loaded */
    FD_GATE_INVENTORY_INVALID,/* doors.txt or installed.txt failed to load */

    /* Panel refusals (fd_runtime_observe_panel). */
    FD_PANEL_UNMATCHED,       /* tag has no bound door definition */
    FD_PANEL_STALE_HANDLE,    /* handle's salt differs from the live slot */
    FD_PANEL_PARENTED,        /* panel is attached to a parent object */
    FD_PANEL_INVALID_TRANSFORM,/* non-finite pose or non-orthonormal axes */
    FD_PANEL_LIMIT,           /* 128 automated panels already tracked */
    FD_PANEL_NORMAL_PHYSICS,  /* Normal physics: automation off, engine rules */

    /* Step outcomes. */
    FD_STEP_PAUSED,           /* same tick number: a paused redraw */
    FD_STEP_INVALID,          /* non-finite, zero, negative or > 1 s step */
    FD_STEP_NOT_HOST,         /* not the authoritative simulation */

    /* Edits and saves. */
    FD_EDIT_DEFERRED,         /* raised panel cannot close: clear doorway */
    FD_SAVE_DEFERRED,         /* a door panel has no verified closed pose */
    FD_SAVE_NEEDS_REHOST,     /* same, after host migration */
    FD_NO_BASELINE,           /* panel's closed pose unknown (migration) */

    FD_STATUS_COUNT
} fd_status;

typedef enum fd_physics {
    FD_PHYSICS_NORMAL = 0,    /* ordinary physics; no automation */
    FD_PHYSICS_FIXED = 1,
    FD_PHYSICS_PHASED = 2
} fd_physics;

typedef enum fd_role {
    FD_ROLE_HOST = 0,         /* authoritative simulation */
    FD_ROLE_CLIENT = 1        /* fireteam client: observes, never animates */
} fd_role;

typedef enum fd_placement_source {
    FD_PLACEMENT_SCENARIO = 0,    /* fresh scenario construction or Revert */
    FD_PLACEMENT_SAVED_LAYOUT = 1 /* loading a saved layout */
} fd_placement_source;

typedef enum fd_door_state {
    FD_DOOR_CLOSED = 0,
    FD_DOOR_OPENING,
    FD_DOOR_OPEN,             /* raised and holding (fully or stopped) */
    FD_DOOR_CLOSING
} fd_door_state;

typedef enum fd_obstacle_kind {
    FD_OBSTACLE_BIPED = 0,    /* also requests opening inside a trigger */
    FD_OBSTACLE_VEHICLE,
    FD_OBSTACLE_CRATE,        /* a Forge object; physics and body decide */
    FD_OBSTACLE_OTHER         /* any other moving body */
} fd_obstacle_kind;

/* Classification of a crate's native physics model. */
typedef enum fd_body_class {
    FD_BODY_UNKNOWN = 0,
    FD_BODY_FIXED_ONLY,       /* only fixed bodies: not an obstacle unparented */
    FD_BODY_DYNAMIC,
    FD_BODY_KEYFRAMED,
    FD_BODY_MIXED
} fd_body_class;

typedef enum fd_edit {
    FD_EDIT_GRAB = 0,
    FD_EDIT_DUPLICATE,
    FD_EDIT_ROTATE,
    FD_EDIT_PHYSICS
} fd_edit;

typedef struct fd_vec3 {
    double x, y, z;
} fd_vec3;

/* fd_pose is a rigid transform: world = origin + x*axis_x + y*axis_y + z*axis_z. */
typedef struct fd_pose {
    fd_vec3 origin;
    fd_vec3 axis_x, axis_y, axis_z;
} fd_pose;

/* fd_span is a byte range in the caller's text; not NUL-terminated. */
typedef struct fd_span {
    const char *ptr;
    size_t len;
} fd_span;

typedef enum fd_binding {
    FD_UNBOUND = 0,           /* no installed.txt row: inert */
    FD_BOUND,                 /* bound to an installed panel */
    FD_BOUND_NOT_PANEL        /* installed.txt lists the tag as a block: inert */
} fd_binding;

/* fd_door_def is one accepted doors.txt row. */
typedef struct fd_door_def {
    char tag[FD_MAX_TAG + 1]; /* NUL-terminated copy */
    uint16_t tag_len;
    uint8_t binding;          /* fd_binding */
    uint32_t line;            /* line number in doors.txt */
    double travel;            /* metres along local +Z */
    double speed;             /* metres per second */
    double trigger[3];        /* trigger box X, Y, Z size */
    double hold;              /* seconds */
    double panel[3];          /* width, depth, height */
} fd_door_def;

/* fd_rejection says why one row was refused. */
typedef struct fd_rejection {
    uint32_t line;            /* 1-based line number */
    uint16_t field;           /* 1-based field, 0 for the whole row */
    uint16_t reason;          /* fd_status */
} fd_rejection;

/* fd_installed_row is one accepted installed.txt row, passed to a visitor. */
typedef struct fd_installed_row {
    uint32_t line;
    fd_span tag, pack, version, piece, kind, class_path;
} fd_installed_row;

typedef void (*fd_installed_row_fn)(void *ctx, const fd_installed_row *row);

/* fd_inventory holds the parsed companion files. */
typedef struct fd_inventory {
    uint16_t doors_status;      /* fd_status of doors.txt as a whole */
    uint16_t installed_status;  /* fd_status of installed.txt as a whole */
    uint32_t generation;        /* bumped on every parse */
    size_t def_count;
    fd_door_def defs[FD_MAX_DEFINITIONS];     /* in file order */
    uint16_t by_tag[FD_MAX_DEFINITIONS];      /* indices sorted by tag */
    size_t doors_rejected;                    /* total rejected rows */
    fd_rejection doors_rejections[FD_MAX_REJECTIONS]; /* the first ones */
    size_t installed_rows;                    /* accepted installed rows */
    size_t installed_rejected;
    fd_rejection installed_rejections[FD_MAX_REJECTIONS];
    size_t bound_count;                       /* definitions bound to panels */
} fd_inventory;

/* fd_obstacle is a conservative bounding sphere around a moving thing. */
typedef struct fd_obstacle {
    fd_vec3 centre;
    double radius;
    uint8_t kind;             /* fd_obstacle_kind */
    uint8_t physics;          /* crates: fd_physics */
    uint8_t parented;         /* crates: attached to a parent object */
    uint8_t body;             /* crates: fd_body_class */
} fd_obstacle;

/* fd_panel_observation is what the adapter's scan found for one object. */
typedef struct fd_panel_observation {
    uint32_t handle;          /* full object handle: salt << 16 | index */
    uint16_t live_salt;       /* salt now stored in the object array slot */
    uint32_t entry;           /* map-variant entry identity */
    const char *tag;          /* the object's Blam tag path */
    size_t tag_len;
    uint8_t parented;
    uint8_t physics;          /* fd_physics */
    fd_pose pose;             /* the pose in the live map variant */
} fd_panel_observation;

/* fd_observe_result tells the adapter what to do after an observation. */
typedef struct fd_observe_result {
    uint8_t write_pose;       /* write pose now (panel left automation) */
    fd_pose pose;
} fd_observe_result;

/* fd_pose_update is one pose to publish after a step. */
typedef struct fd_pose_update {
    uint32_t handle;
    uint32_t entry;
    fd_pose pose;
} fd_pose_update;

/* fd_panel is the runtime's record of one automated panel. Read only. */
typedef struct fd_panel {
    uint64_t world;           /* cache key: world instance, */
    uint32_t handle;          /*   full object handle, */
    uint32_t entry;           /*   and entry identity */
    uint16_t def;             /* index into inventory defs */
    uint32_t def_generation;
    uint8_t physics;
    uint8_t state;            /* fd_door_state */
    uint8_t verified;         /* closed pose is a verified baseline */
    uint8_t seen;             /* observed in the current scan */
    uint8_t usable;           /* last observation accepted */
    uint8_t dirty;            /* pose changed; not yet handed out */
    uint8_t stopped;          /* opening stopped beneath an obstacle */
    uint8_t editing;          /* held closed for an edit */
    double height;            /* current lift along local +Z, metres */
    double hold_left;         /* seconds before closing */
    fd_pose closed;           /* authored closed pose (the baseline) */
    fd_pose published;        /* pose last published or observed */
} fd_panel;

typedef struct fd_body_entry {
    uint64_t world;
    uint32_t salted_tag;
    uint8_t used;
    uint8_t body;             /* fd_body_class */
} fd_body_entry;

typedef fd_body_class (*fd_classify_fn)(void *ctx, uint32_t salted_tag);

/* fd_runtime is the whole door automation state of one game instance. */
typedef struct fd_runtime {
    fd_inventory inv;
    uint8_t inventory_loaded;
    uint8_t build_reported, build_ok;
    uint8_t forge_loaded;
    uint32_t forge_api;
    uint64_t world;
    uint8_t role;             /* fd_role */
    uint8_t migrated;         /* became host by migration this world */
    uint8_t scanning;
    uint8_t have_tick;
    uint64_t last_tick;
    uint64_t ticks_advanced;
    size_t panel_count;
    fd_panel panels[FD_MAX_ACTIVE_PANELS];
    fd_body_entry bodies[FD_BODY_CACHE_SIZE];
} fd_runtime;

/* ---- text and numbers ---------------------------------------------- */

/* fd_status_text returns a sentence describing a status. */
const char *fd_status_text(fd_status status);

/* fd_parse_decimal parses a plain decimal-dot number (-?digits[.digits],
 * at most FD_MAX_NUMBER bytes) into the nearest double, independent of the
 * C locale. It returns 1 on success, 0 when the text is not such a number. */
int fd_parse_decimal(const char *text, size_t len, double *out);

/* ---- companion files ------------------------------------------------ */

/* fd_inventory_init empties an inventory (no files loaded). */
void fd_inventory_init(fd_inventory *inv);

/* fd_inventory_parse_doors parses doors.txt, replacing any definitions.
 * It returns FD_FILE_BAD_HEADER when the header is wrong (nothing loads) and
 * FD_OK otherwise; bad rows are rejected one by one. Bindings are reset. */
fd_status fd_inventory_parse_doors(fd_inventory *inv, const char *text, size_t len);

/* fd_inventory_bind_installed parses installed.txt and binds each door
 * definition whose tag it lists as a panel. each, when not NULL, is called
 * for every accepted row. Call it after fd_inventory_parse_doors. */
fd_status fd_inventory_bind_installed(fd_inventory *inv, const char *text, size_t len,
                                      fd_installed_row_fn each, void *ctx);

/* fd_inventory_find returns the definition of a tag, or NULL. */
const fd_door_def *fd_inventory_find(const fd_inventory *inv, const char *tag, size_t len);

/* ---- geometry -------------------------------------------------------- */

/* fd_pose_valid reports whether a pose is finite with orthonormal,
 * right-handed axes (within FD_ROTATION_TOLERANCE). */
int fd_pose_valid(const fd_pose *pose);

/* fd_in_trigger reports whether a world point lies in the door trigger of
 * a definition placed at a closed pose. */
int fd_in_trigger(const fd_door_def *def, const fd_pose *closed, fd_vec3 point);

/* fd_sphere_hits_sweep reports whether a sphere intersects the box the
 * panel sweeps from lift `height` down to closed: local x in [-w/2, w/2],
 * y in [-d/2, d/2], z in [0, height + h]. */
int fd_sphere_hits_sweep(const fd_door_def *def, const fd_pose *closed, double height,
                         fd_vec3 centre, double radius);

/* fd_obstacle_counts reports whether an obstacle takes part in clearance:
 * bipeds, vehicles, other bodies and movable crates do; Fixed/Phased crates
 * and unparented crates holding only fixed bodies do not. */
int fd_obstacle_counts(const fd_obstacle *obstacle);

/* fd_pose_at returns the closed pose lifted by height along local +Z. */
fd_pose fd_pose_at(const fd_pose *closed, double height);

/* ---- runtime ---------------------------------------------------------- */

/* fd_runtime_init resets a runtime: no inventory, no build, no Forge, no
 * world (host role, world 0). */
void fd_runtime_init(fd_runtime *rt);

/* fd_runtime_load_inventory parses doors.txt and installed.txt (either may
 * be NULL when the file is missing). Tracked panels whose definition
 * disappears are released at their next observation. It returns FD_OK, or
 * the gate that now disables automation. */
fd_status fd_runtime_load_inventory(fd_runtime *rt, const char *doors, size_t doors_len,
                                    const char *installed, size_t installed_len);

/* fd_runtime_report_build checks the game build id against the allowlist. */
void fd_runtime_report_build(fd_runtime *rt, const char *build_id);

/* fd_runtime_report_forge records whether the native Forge module is loaded
 * and the native utility API marker it exposes (0 when it has none). */
void fd_runtime_report_forge(fd_runtime *rt, int loaded, uint32_t api_marker);

/* fd_runtime_gate returns FD_OK when automation may run, else the first
 * gate that disables it: build, Forge, inventory. */
fd_status fd_runtime_gate(const fd_runtime *rt);

/* fd_runtime_begin_world starts a world instance (travel, new session,
 * rehost): it drops every panel, baseline and cached body classification. */
void fd_runtime_begin_world(fd_runtime *rt, uint64_t world_instance, fd_role role);

/* fd_runtime_become_host records a host migration: panels whose closed
 * pose was never verified stay without automation and block saves until
 * the next fd_runtime_begin_world. */
void fd_runtime_become_host(fd_runtime *rt);

/* fd_runtime_seed_physics returns the physics a placement gets before its
 * object is created: scenario construction and Revert seed installed door
 * panels to Fixed; a saved layout keeps its own choice. */
fd_physics fd_runtime_seed_physics(const fd_runtime *rt, const char *tag, size_t tag_len,
                                   fd_placement_source source, fd_physics placement);

/* fd_runtime_classify_body returns the body class of a salted tag, from
 * the per-world cache or, on a miss, from classify (then cached). */
fd_body_class fd_runtime_classify_body(fd_runtime *rt, uint32_t salted_tag,
                                       fd_classify_fn classify, void *ctx);

/* fd_runtime_begin_scan starts the adapter's per-tick scan. Panels not
 * observed before the next fd_runtime_step are gone (deleted or replaced);
 * their baselines are dropped. */
void fd_runtime_begin_scan(fd_runtime *rt);

/* fd_runtime_observe_panel reports one door-panel object found by the scan.
 * It returns FD_OK when the panel is automated, or why it is not
 * (FD_NO_BASELINE: tracked, but its closed pose is unknown, so it is not
 * animated and saves wait). res may be NULL; when res->write_pose is set the
 * adapter writes res->pose now.
 *
 * obs->pose must be the pose the live map variant holds now. The adapter
 * writes every pose fd_runtime_next_update hands out before the next scan;
 * a pose that differs from the last one published is an external authored
 * change and becomes the new closed baseline (on the host). A slot freed by
 * a deleted panel is reusable from the scan after the step that drops it. */
fd_status fd_runtime_observe_panel(fd_runtime *rt, const fd_panel_observation *obs,
                                   fd_observe_result *res);

/* fd_runtime_step ends the scan and advances every automated panel by one
 * tick when tick differs from the previous tick. obstacles are this tick's
 * moving things (count may be 0). It returns FD_OK when panels advanced,
 * FD_STEP_PAUSED, FD_STEP_INVALID, FD_STEP_NOT_HOST, or a gate. */
fd_status fd_runtime_step(fd_runtime *rt, uint64_t tick, double tick_seconds,
                          const fd_obstacle *obstacles, size_t count);

/* fd_runtime_next_update hands out the next changed pose; start with
 * *cursor = 0. It returns 0 when there are no more. */
int fd_runtime_next_update(fd_runtime *rt, size_t *cursor, fd_pose_update *out);

/* fd_runtime_enter_monitor closes every raised panel whose whole closing
 * path is clear and returns how many stay raised. */
size_t fd_runtime_enter_monitor(fd_runtime *rt, const fd_obstacle *obstacles, size_t count);

/* fd_runtime_request_edit asks to grab, duplicate, rotate or change the
 * physics of an object. A raised door panel closes first when its closing
 * path is clear and is held closed until fd_runtime_finish_edit; otherwise
 * the edit is FD_EDIT_DEFERRED. Other objects are always FD_OK. */
fd_status fd_runtime_request_edit(fd_runtime *rt, uint32_t handle, fd_edit edit,
                                  const fd_obstacle *obstacles, size_t count);

/* fd_runtime_finish_edit returns a panel held for an edit to automation. */
void fd_runtime_finish_edit(fd_runtime *rt, uint32_t handle);

/* fd_runtime_save_begin returns FD_OK when a save may proceed, or
 * FD_SAVE_DEFERRED / FD_SAVE_NEEDS_REHOST when an automated panel has no
 * verified closed pose. */
fd_status fd_runtime_save_begin(const fd_runtime *rt);

/* fd_runtime_save_project replaces *pose, an entry of Forge's temporary
 * serialization copy, with the panel's verified closed pose. Objects that
 * are not automated panels are left alone (FD_OK). The live door is never
 * moved. */
fd_status fd_runtime_save_project(const fd_runtime *rt, uint32_t handle, uint32_t entry,
                                  fd_pose *pose);

/* fd_runtime_find_panel returns the tracked panel with this handle, or NULL. */
const fd_panel *fd_runtime_find_panel(const fd_runtime *rt, uint32_t handle);

#ifdef __cplusplus
}
#endif

#endif /* FORGE_DOORS_RUNTIME_H */

/* ======================================================================
 * Implementation
 * ====================================================================== */
#ifdef FORGE_DOORS_IMPLEMENTATION
#ifndef FORGE_DOORS_IMPLEMENTED
#define FORGE_DOORS_IMPLEMENTED

#include <math.h>
#include <string.h>

const char *fd_status_text(fd_status status)
{
    switch (status) {
    case FD_OK: return "ok";
    case FD_ERR_ARGUMENT: return "a required argument is missing";
    case FD_FILE_MISSING: return "the companion file is missing";
    case FD_FILE_BAD_HEADER: return "the companion file does not start with its expected header";
    case FD_ROW_EMPTY: return "empty row";
    case FD_ROW_FIELD_COUNT: return "wrong number of tab-separated fields";
    case FD_ROW_CONTROL_CHAR: return "a field contains a control character";
    case FD_ROW_BAD_TAG: return "tag is not a valid mjolnir\\forge\\<pack>\\ tag path";
    case FD_ROW_BAD_NUMBER: return "not a plain decimal number with a dot";
    case FD_ROW_TRAVEL_RANGE: return "travel must be greater than 0 and at most 16 m";
    case FD_ROW_SPEED_RANGE: return "speed must be greater than 0 and at most 8 m/s";
    case FD_ROW_TRIGGER_RANGE: return "trigger size must be greater than 0 and at most 32 m";
    case FD_ROW_HOLD_RANGE: return "hold time must be between 0 and 10 s";
    case FD_ROW_PANEL_RANGE: return "panel dimensions must be between 0.01 and 64 m";
    case FD_ROW_DUPLICATE_TAG: return "duplicate tag; the earlier row wins";
    case FD_ROW_LIMIT: return "more than 256 door definitions";
    case FD_ROW_BAD_PACK_ID: return "pack id is not a valid slug";
    case FD_ROW_BAD_VERSION: return "pack version is not a semantic version";
    case FD_ROW_BAD_PIECE_ID: return "piece id is not valid";
    case FD_ROW_BAD_KIND: return "kind must be block or panel";
    case FD_ROW_BAD_CLASS: return "class is not a valid /Game/MJOLNIR/Forge/<pack>/ class path";
    case FD_ROW_PACK_MISMATCH: return "tag or class does not belong to the row's pack";
    case FD_GATE_BUILD_UNKNOWN: return "door automation waits for the game build to be identified";
    case FD_GATE_BUILD_UNSUPPORTED: return "door automation is disabled: unsupported game build";
    case FD_GATE_FORGE_WAITING: return "door automation waits for a compatible native Forge module";
    case FD_GATE_FORGE_OLD:
        return "door automation is refused: the loaded Forge module is older than 0.4.0 and its "
               "save path would serialize the animated position; update MJOLNIRForge";
    case FD_GATE_INVENTORY_MISSING: return "door automation is disabled: no door inventory is loaded";
    case FD_GATE_INVENTORY_INVALID:
        return "door automation is disabled: doors.txt or installed.txt failed to load";
    case FD_PANEL_UNMATCHED: return "panel tag has no door definition bound in installed.txt";
    case FD_PANEL_STALE_HANDLE: return "stale object handle";
    case FD_PANEL_PARENTED: return "parented panels are not automated";
    case FD_PANEL_INVALID_TRANSFORM: return "panel transform is not finite or not a rotation";
    case FD_PANEL_LIMIT: return "more than 128 automated door panels";
    case FD_PANEL_NORMAL_PHYSICS: return "Normal physics: automation off, ordinary physics in control";
    case FD_STEP_PAUSED: return "same tick: paused redraw, nothing advanced";
    case FD_STEP_INVALID: return "invalid time step, nothing advanced";
    case FD_STEP_NOT_HOST: return "not the authoritative simulation";
    case FD_EDIT_DEFERRED:
        return "clear the doorway: this door is raised and something blocks it from closing";
    case FD_SAVE_DEFERRED:
        return "save deferred: a door panel has no verified closed position yet";
    case FD_SAVE_NEEDS_REHOST:
        return "save disabled until the game is rehosted: a door's closed position was lost "
               "in host migration";
    case FD_NO_BASELINE: return "the panel's closed position is unknown until the game is rehosted";
    case FD_STATUS_COUNT: break;
    }
    return "unknown status";
}

/* ---- exact decimal conversion ------------------------------------------
 * value = digits * 10^exp10. Small cases take the exact fast path (both
 * operands exactly representable, one correctly rounded operation). Up to
 * 19 significant digits take the Eisel-Lemire path (a 64 x 128-bit product
 * with a truncated power of ten; it proves its own rounding or declines).
 * The rest, and what it declines (exact halfway points and the rare
 * products too close to one to decide), start from an estimate and correct
 * it against the exact halfway points with a small fixed-size big integer. */

#define FD_BIG_LIMBS 40

typedef struct fd_big {
    uint32_t limb[FD_BIG_LIMBS];
    int n;
} fd_big;

static void fd_big_set(fd_big *b, uint64_t v)
{
    b->n = 0;
    while (v) {
        b->limb[b->n++] = (uint32_t)v;
        v >>= 32;
    }
}

static void fd_big_mul_small(fd_big *b, uint32_t m, uint32_t add)
{
    uint64_t carry = add;
    int i;
    for (i = 0; i < b->n; i++) {
        uint64_t t = (uint64_t)b->limb[i] * m + carry;
        b->limb[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry && b->n < FD_BIG_LIMBS)
        b->limb[b->n++] = (uint32_t)carry;
}

static void fd_big_pow10(fd_big *b, int k)
{
    while (k-- > 0)
        fd_big_mul_small(b, 10, 0);
}

static void fd_big_shl(fd_big *b, int bits)
{
    int words = bits / 32, rem = bits % 32, i;
    if (b->n == 0)
        return;
    if (words) {
        for (i = b->n - 1; i >= 0; i--)
            b->limb[i + words] = b->limb[i];
        for (i = 0; i < words; i++)
            b->limb[i] = 0;
        b->n += words;
    }
    if (rem) {
        uint32_t carry = 0;
        for (i = words; i < b->n; i++) {
            uint32_t v = b->limb[i];
            b->limb[i] = (v << rem) | carry;
            carry = v >> (32 - rem);
        }
        if (carry)
            b->limb[b->n++] = carry;
    }
}

static int fd_big_cmp(const fd_big *a, const fd_big *b)
{
    int i;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (i = a->n - 1; i >= 0; i--)
        if (a->limb[i] != b->limb[i])
            return a->limb[i] < b->limb[i] ? -1 : 1;
    return 0;
}

static void fd_big_trim(fd_big *b)
{
    while (b->n > 0 && b->limb[b->n - 1] == 0)
        b->n--;
}

/* fd_big_add adds a to r. */
static void fd_big_add(fd_big *r, const fd_big *a)
{
    uint64_t carry = 0;
    int i;
    for (i = 0; i < a->n || (carry && i < FD_BIG_LIMBS); i++) {
        uint64_t t = carry + (i < r->n ? r->limb[i] : 0) + (i < a->n ? a->limb[i] : 0);
        if (i >= r->n) {
            r->limb[i] = 0;
            r->n = i + 1;
        }
        r->limb[i] = (uint32_t)t;
        carry = t >> 32;
    }
}

/* fd_big_mul_u64 sets r = p * x. */
static void fd_big_mul_u64(fd_big *r, const fd_big *p, uint64_t x)
{
    fd_big hi = *p;
    *r = *p;
    fd_big_mul_small(r, (uint32_t)x, 0);
    fd_big_trim(r);
    fd_big_mul_small(&hi, (uint32_t)(x >> 32), 0);
    fd_big_trim(&hi);
    fd_big_shl(&hi, 32);
    fd_big_add(r, &hi);
}

/* fd_cmp_halfway compares the decimal value num / den (den a power of
 * ten) with (2m+1) * 2^(e-1), the point halfway between m*2^e and
 * (m+1)*2^e. */
static int fd_cmp_halfway(const fd_big *num, const fd_big *den, uint64_t m, int e)
{
    fd_big a = *num, b;
    int f = e - 1;
    fd_big_mul_u64(&b, den, 2 * m + 1);
    if (f > 0)
        fd_big_shl(&b, f);
    else
        fd_big_shl(&a, -f);
    return fd_big_cmp(&a, &b);
}

/* FD_POW10_MIN..FD_POW10_MAX covers every exponent a number of at most
 * FD_MAX_NUMBER bytes can have (1e-38 to 1e39). */
#define FD_POW10_MIN (-40)
#define FD_POW10_MAX 40

/* fd_pow10_128 holds 10^q as hi:lo / 2^128 * 2^exp2, the 128-bit mantissa
 * (top bit set) rounded down: the same values as Go's strconv table
 * (generated with math/big; native/pow10_table_test.go checks every row). */
static const struct fd_pow10_row {
    uint64_t hi, lo;
    int exp2;
} fd_pow10_128[FD_POW10_MAX - FD_POW10_MIN + 1] = {
    {0x8B61313BBABCE2C6u, 0x2323AC4B3B3DA015u, -132}, /* 1e-40 */
    {0xAE397D8AA96C1B77u, 0xABEC975E0A0D081Au, -129}, /* 1e-39 */
    {0xD9C7DCED53C72255u, 0x96E7BD358C904A21u, -126}, /* 1e-38 */
    {0x881CEA14545C7575u, 0x7E50D64177DA2E54u, -122}, /* 1e-37 */
    {0xAA242499697392D2u, 0xDDE50BD1D5D0B9E9u, -119}, /* 1e-36 */
    {0xD4AD2DBFC3D07787u, 0x955E4EC64B44E864u, -116}, /* 1e-35 */
    {0x84EC3C97DA624AB4u, 0xBD5AF13BEF0B113Eu, -112}, /* 1e-34 */
    {0xA6274BBDD0FADD61u, 0xECB1AD8AEACDD58Eu, -109}, /* 1e-33 */
    {0xCFB11EAD453994BAu, 0x67DE18EDA5814AF2u, -106}, /* 1e-32 */
    {0x81CEB32C4B43FCF4u, 0x80EACF948770CED7u, -102}, /* 1e-31 */
    {0xA2425FF75E14FC31u, 0xA1258379A94D028Du, -99}, /* 1e-30 */
    {0xCAD2F7F5359A3B3Eu, 0x096EE45813A04330u, -96}, /* 1e-29 */
    {0xFD87B5F28300CA0Du, 0x8BCA9D6E188853FCu, -93}, /* 1e-28 */
    {0x9E74D1B791E07E48u, 0x775EA264CF55347Du, -89}, /* 1e-27 */
    {0xC612062576589DDAu, 0x95364AFE032A819Du, -86}, /* 1e-26 */
    {0xF79687AED3EEC551u, 0x3A83DDBD83F52204u, -83}, /* 1e-25 */
    {0x9ABE14CD44753B52u, 0xC4926A9672793542u, -79}, /* 1e-24 */
    {0xC16D9A0095928A27u, 0x75B7053C0F178293u, -76}, /* 1e-23 */
    {0xF1C90080BAF72CB1u, 0x5324C68B12DD6338u, -73}, /* 1e-22 */
    {0x971DA05074DA7BEEu, 0xD3F6FC16EBCA5E03u, -69}, /* 1e-21 */
    {0xBCE5086492111AEAu, 0x88F4BB1CA6BCF584u, -66}, /* 1e-20 */
    {0xEC1E4A7DB69561A5u, 0x2B31E9E3D06C32E5u, -63}, /* 1e-19 */
    {0x9392EE8E921D5D07u, 0x3AFF322E62439FCFu, -59}, /* 1e-18 */
    {0xB877AA3236A4B449u, 0x09BEFEB9FAD487C2u, -56}, /* 1e-17 */
    {0xE69594BEC44DE15Bu, 0x4C2EBE687989A9B3u, -53}, /* 1e-16 */
    {0x901D7CF73AB0ACD9u, 0x0F9D37014BF60A10u, -49}, /* 1e-15 */
    {0xB424DC35095CD80Fu, 0x538484C19EF38C94u, -46}, /* 1e-14 */
    {0xE12E13424BB40E13u, 0x2865A5F206B06FB9u, -43}, /* 1e-13 */
    {0x8CBCCC096F5088CBu, 0xF93F87B7442E45D3u, -39}, /* 1e-12 */
    {0xAFEBFF0BCB24AAFEu, 0xF78F69A51539D748u, -36}, /* 1e-11 */
    {0xDBE6FECEBDEDD5BEu, 0xB573440E5A884D1Bu, -33}, /* 1e-10 */
    {0x89705F4136B4A597u, 0x31680A88F8953030u, -29}, /* 1e-9 */
    {0xABCC77118461CEFCu, 0xFDC20D2B36BA7C3Du, -26}, /* 1e-8 */
    {0xD6BF94D5E57A42BCu, 0x3D32907604691B4Cu, -23}, /* 1e-7 */
    {0x8637BD05AF6C69B5u, 0xA63F9A49C2C1B10Fu, -19}, /* 1e-6 */
    {0xA7C5AC471B478423u, 0x0FCF80DC33721D53u, -16}, /* 1e-5 */
    {0xD1B71758E219652Bu, 0xD3C36113404EA4A8u, -13}, /* 1e-4 */
    {0x83126E978D4FDF3Bu, 0x645A1CAC083126E9u, -9}, /* 1e-3 */
    {0xA3D70A3D70A3D70Au, 0x3D70A3D70A3D70A3u, -6}, /* 1e-2 */
    {0xCCCCCCCCCCCCCCCCu, 0xCCCCCCCCCCCCCCCCu, -3}, /* 1e-1 */
    {0x8000000000000000u, 0x0000000000000000u, 1}, /* 1e0 */
    {0xA000000000000000u, 0x0000000000000000u, 4}, /* 1e1 */
    {0xC800000000000000u, 0x0000000000000000u, 7}, /* 1e2 */
    {0xFA00000000000000u, 0x0000000000000000u, 10}, /* 1e3 */
    {0x9C40000000000000u, 0x0000000000000000u, 14}, /* 1e4 */
    {0xC350000000000000u, 0x0000000000000000u, 17}, /* 1e5 */
    {0xF424000000000000u, 0x0000000000000000u, 20}, /* 1e6 */
    {0x9896800000000000u, 0x0000000000000000u, 24}, /* 1e7 */
    {0xBEBC200000000000u, 0x0000000000000000u, 27}, /* 1e8 */
    {0xEE6B280000000000u, 0x0000000000000000u, 30}, /* 1e9 */
    {0x9502F90000000000u, 0x0000000000000000u, 34}, /* 1e10 */
    {0xBA43B74000000000u, 0x0000000000000000u, 37}, /* 1e11 */
    {0xE8D4A51000000000u, 0x0000000000000000u, 40}, /* 1e12 */
    {0x9184E72A00000000u, 0x0000000000000000u, 44}, /* 1e13 */
    {0xB5E620F480000000u, 0x0000000000000000u, 47}, /* 1e14 */
    {0xE35FA931A0000000u, 0x0000000000000000u, 50}, /* 1e15 */
    {0x8E1BC9BF04000000u, 0x0000000000000000u, 54}, /* 1e16 */
    {0xB1A2BC2EC5000000u, 0x0000000000000000u, 57}, /* 1e17 */
    {0xDE0B6B3A76400000u, 0x0000000000000000u, 60}, /* 1e18 */
    {0x8AC7230489E80000u, 0x0000000000000000u, 64}, /* 1e19 */
    {0xAD78EBC5AC620000u, 0x0000000000000000u, 67}, /* 1e20 */
    {0xD8D726B7177A8000u, 0x0000000000000000u, 70}, /* 1e21 */
    {0x878678326EAC9000u, 0x0000000000000000u, 74}, /* 1e22 */
    {0xA968163F0A57B400u, 0x0000000000000000u, 77}, /* 1e23 */
    {0xD3C21BCECCEDA100u, 0x0000000000000000u, 80}, /* 1e24 */
    {0x84595161401484A0u, 0x0000000000000000u, 84}, /* 1e25 */
    {0xA56FA5B99019A5C8u, 0x0000000000000000u, 87}, /* 1e26 */
    {0xCECB8F27F4200F3Au, 0x0000000000000000u, 90}, /* 1e27 */
    {0x813F3978F8940984u, 0x4000000000000000u, 94}, /* 1e28 */
    {0xA18F07D736B90BE5u, 0x5000000000000000u, 97}, /* 1e29 */
    {0xC9F2C9CD04674EDEu, 0xA400000000000000u, 100}, /* 1e30 */
    {0xFC6F7C4045812296u, 0x4D00000000000000u, 103}, /* 1e31 */
    {0x9DC5ADA82B70B59Du, 0xF020000000000000u, 107}, /* 1e32 */
    {0xC5371912364CE305u, 0x6C28000000000000u, 110}, /* 1e33 */
    {0xF684DF56C3E01BC6u, 0xC732000000000000u, 113}, /* 1e34 */
    {0x9A130B963A6C115Cu, 0x3C7F400000000000u, 117}, /* 1e35 */
    {0xC097CE7BC90715B3u, 0x4B9F100000000000u, 120}, /* 1e36 */
    {0xF0BDC21ABB48DB20u, 0x1E86D40000000000u, 123}, /* 1e37 */
    {0x96769950B50D88F4u, 0x1314448000000000u, 127}, /* 1e38 */
    {0xBC143FA4E250EB31u, 0x17D955A000000000u, 130}, /* 1e39 */
    {0xEB194F8E1AE525FDu, 0x5DCFAB0800000000u, 133}  /* 1e40 */
};

/* fd_mul64 sets *hi:*lo to the 128-bit product a * b (portable C where
 * the compiler has no 128-bit integer type, as MSVC has not). */
static void fd_mul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
#if defined(__SIZEOF_INT128__)
    /* gcc and clang on 64-bit targets: one multiply instruction */
    __extension__ typedef unsigned __int128 fd_u128;
    const fd_u128 p = (fd_u128)a * b;
    *hi = (uint64_t)(p >> 64);
    *lo = (uint64_t)p;
#else
    const uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    const uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *lo = (mid << 32) | (uint32_t)p00;
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
}

/* fd_eisel_lemire sets *out to man * 10^exp10 correctly rounded (man > 0)
 * and returns 1, or returns 0 when it cannot prove the rounding (the
 * caller then takes the exact path). It follows Go's strconv eiselLemire64
 * (https://nigeltao.github.io/blog/2020/eisel-lemire.html). */
static int fd_eisel_lemire(uint64_t man, int exp10, double *out)
{
    const struct fd_pow10_row *pow;
    uint64_t x_hi, x_lo, ret_mant, ret_exp2, bits;
    int clz = 0;
    if (man == 0 || exp10 < FD_POW10_MIN || exp10 > FD_POW10_MAX)
        return 0;
    pow = &fd_pow10_128[exp10 - FD_POW10_MIN];
    /* normalization */
#if defined(__GNUC__) || defined(__clang__)
    clz = __builtin_clzll(man); /* man > 0 */
    man <<= clz;
#else
    if (!(man >> 32)) {
        man <<= 32;
        clz += 32;
    }
    if (!(man >> 48)) {
        man <<= 16;
        clz += 16;
    }
    if (!(man >> 56)) {
        man <<= 8;
        clz += 8;
    }
    if (!(man >> 60)) {
        man <<= 4;
        clz += 4;
    }
    if (!(man >> 62)) {
        man <<= 2;
        clz += 2;
    }
    if (!(man >> 63)) {
        man <<= 1;
        clz += 1;
    }
#endif
    ret_exp2 = (uint64_t)(pow->exp2 + 63 + 1023) - (uint64_t)clz;
    /* multiplication */
    fd_mul64(man, pow->hi, &x_hi, &x_lo);
    /* wider approximation */
    if ((x_hi & 0x1FF) == 0x1FF && x_lo + man < man) {
        uint64_t y_hi, y_lo, merged_hi = x_hi, merged_lo;
        fd_mul64(man, pow->lo, &y_hi, &y_lo);
        merged_lo = x_lo + y_hi;
        if (merged_lo < x_lo)
            merged_hi++;
        if ((merged_hi & 0x1FF) == 0x1FF && merged_lo + 1 == 0 && y_lo + man < man)
            return 0;
        x_hi = merged_hi;
        x_lo = merged_lo;
    }
    /* shifting to 54 bits */
    {
        const uint64_t msb = x_hi >> 63;
        ret_mant = x_hi >> (msb + 9);
        ret_exp2 -= 1 ^ msb;
    }
    /* half-way ambiguity */
    if (x_lo == 0 && (x_hi & 0x1FF) == 0 && (ret_mant & 3) == 1)
        return 0;
    /* from 54 to 53 bits */
    ret_mant += ret_mant & 1;
    ret_mant >>= 1;
    if (ret_mant >> 53) {
        ret_mant >>= 1;
        ret_exp2++;
    }
    /* subnormal or infinite: not reachable in FD_MAX_NUMBER bytes, but
     * left to the exact path rather than assumed */
    if (ret_exp2 - 1 >= 0x7FF - 1)
        return 0;
    bits = ret_exp2 << 52 | (ret_mant & (((uint64_t)1 << 52) - 1));
    memcpy(out, &bits, sizeof *out);
    return 1;
}

/* fd_little_endian reports whether the first byte in memory is a word's
 * lowest (compilers fold it to a constant). */
static int fd_little_endian(void)
{
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 1;
}

/* fd_read_digits reads the run of decimal digits at text[p..len): it
 * appends them to digits, accumulates the first 19 significant ones into
 * *m and counts them in *nd. It returns the position after the run. On a
 * little-endian machine 8 digits at a time are checked and converted in a
 * word (the SWAR method of simdjson and fast_float). */
static size_t fd_read_digits(const char *text, size_t p, size_t len, char *digits, int *nd,
                             uint64_t *m)
{
    unsigned d;
    if (fd_little_endian()) {
        while (p + 8 <= len && *nd <= 11) {
            uint64_t w;
            memcpy(&w, text + p, sizeof w);
            if (((w & 0xF0F0F0F0F0F0F0F0u) |
                 (((w + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4)) !=
                0x3333333333333333u)
                break; /* not 8 digits */
            memcpy(digits + *nd, text + p, 8);
            w -= 0x3030303030303030u;
            w = w * 10 + (w >> 8);
            w = ((w & 0x000000FF000000FFu) * 0x000F424000000064u +
                 ((w >> 16) & 0x000000FF000000FFu) * 0x0000271000000001u) >> 32;
            *m = *m * 100000000u + (uint32_t)w;
            *nd += 8;
            p += 8;
        }
    }
    for (; p < len && (d = (unsigned)((unsigned char)text[p] - '0')) < 10; p++) {
        if (*nd < 19)
            *m = *m * 10 + d;
        digits[(*nd)++] = text[p];
    }
    return p;
}

/* fd_parse_decimal_exact is the general reader behind fd_parse_decimal:
 * any number of digits, trailing zeros dropped, the exact fallback. */
static int fd_parse_decimal_exact(const char *text, size_t len, double *out)
{
    static const double fd_pow10_table[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    char digits[FD_MAX_NUMBER];
    int nd = 0, exp10 = 0, neg = 0, zeros = 0, i;
    size_t p = 0, start;
    uint64_t m = 0; /* the first 19 significant digits */
    double v;

    if (!text || !out || len == 0 || len > FD_MAX_NUMBER)
        return 0;
    if (text[0] == '-') {
        neg = 1;
        p = 1;
    }
    /* one pass: leading zeros are skipped, significant digits kept (and
     * the first 19 accumulated), the fraction's digits counted in exp10 */
    start = p;
    while (p < len && text[p] == '0')
        p++;
    p = fd_read_digits(text, p, len, digits, &nd, &m);
    if (p == start)
        return 0; /* no integer digit */
    if (p < len && text[p] == '.') {
        start = ++p;
        if (nd == 0) {
            while (p < len && text[p] == '0')
                p++;
            exp10 -= (int)(p - start);
        }
        {
            const size_t first = p;
            p = fd_read_digits(text, p, len, digits, &nd, &m);
            exp10 -= (int)(p - first);
        }
        if (p == start)
            return 0; /* no fraction digit */
    }
    if (p != len)
        return 0;
    while (nd > 0 && digits[nd - 1] == '0') {
        nd--;
        exp10++;
        zeros++;
    }
    if (nd == 0) {
        *out = 0.0; /* "-0" reads as 0, like the renderer writes it */
        return 1;
    }
    if (nd + zeros <= 19) {
        for (i = 0; i < zeros; i++)
            m /= 10; /* the trailing zeros were accumulated too */
    } else if (nd <= 19) {
        m = 0;
        for (i = 0; i < nd; i++)
            m = m * 10 + (uint64_t)(digits[i] - '0');
    }
    if (nd <= 19 && m <= ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22) {
        /* both operands exact: one correctly rounded operation */
        v = exp10 >= 0 ? (double)m * fd_pow10_table[exp10] : (double)m / fd_pow10_table[-exp10];
    } else if (nd <= 19 && fd_eisel_lemire(m, exp10, &v)) {
        /* rounding proven by the 128-bit product */
    } else {
        /* Estimate, then step to the correctly rounded neighbour, comparing
         * exactly against the halfway points: num / den is the value. */
        fd_big num, den;
        double est = 0.0;
        int e2, guard;
        fd_big_set(&num, 0);
        for (i = 0; i < nd; i++)
            fd_big_mul_small(&num, 10, (uint32_t)(digits[i] - '0'));
        fd_big_set(&den, 1);
        if (exp10 > 0)
            fd_big_pow10(&num, exp10);
        else
            fd_big_pow10(&den, -exp10);
        for (i = 0; i < nd && i < 19; i++)
            est = est * 10.0 + (double)(digits[i] - '0');
        v = est * pow(10.0, (double)(exp10 + (nd > 19 ? nd - 19 : 0)));
        for (guard = 0; guard < 64; guard++) {
            double frac = frexp(v, &e2);
            uint64_t mant = (uint64_t)ldexp(frac, 53);
            int c = fd_cmp_halfway(&num, &den, mant, e2 - 53);
            if (c > 0 || (c == 0 && (mant & 1))) {
                /* above the upper halfway point (or a tie to odd) */
                v = nextafter(v, HUGE_VAL);
                continue;
            }
            {
                double lower = nextafter(v, 0.0);
                int lf;
                double lfrac = frexp(lower, &lf);
                uint64_t lmant = (uint64_t)ldexp(lfrac, 53);
                int d = fd_cmp_halfway(&num, &den, lmant, lf - 53);
                if (d < 0 || (d == 0 && (mant & 1))) {
                    v = lower;
                    continue;
                }
            }
            break;
        }
    }
    *out = neg ? -v : v;
    return 1;
}

/* fd_parse_decimal reads in one pass, without copying, the numbers that
 * have at most 19 significant digits (every doors.txt number the renderer
 * writes, 17-digit ones included): the integer part digit by digit (it is
 * short), the fraction 8 digits at a time on a little-endian machine (the
 * SWAR method of simdjson and fast_float), then the exact fast path or
 * Eisel-Lemire. Longer numbers, and the rare ones Eisel-Lemire declines,
 * go to fd_parse_decimal_exact, which reads the text again. Trailing zeros
 * stay in the mantissa here: m * 10^exp10 is the same number either way,
 * and each path rounds it correctly. */
int fd_parse_decimal(const char *text, size_t len, double *out)
{
    static const double fd_pow10_neg[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                          1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                          1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const unsigned char *s, *end, *sig, *frac;
    uint64_t m = 0;
    size_t nd;
    unsigned d;
    int exp10 = 0;
    double v;

    if (!text || !out || len == 0 || len > FD_MAX_NUMBER)
        return 0;
    s = (const unsigned char *)text;
    end = s + len;
    s += *s == '-';
    if (s == end || (unsigned)(*s - '0') >= 10)
        return 0; /* no integer digit */
    while (s < end && *s == '0')
        s++;
    sig = s;
    for (; s < end && (d = (unsigned)(*s - '0')) < 10; s++)
        m = m * 10 + d;
    nd = (size_t)(s - sig);
    if (s < end && *s == '.') {
        frac = ++s;
        if (nd == 0) /* 0.000ddd: the zeros are not significant */
            while (s < end && *s == '0')
                s++;
        sig = s;
        if (fd_little_endian()) {
            while (end - s >= 8) {
                uint64_t w;
                memcpy(&w, s, sizeof w);
                if (((w & 0xF0F0F0F0F0F0F0F0u) |
                     (((w + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4)) !=
                    0x3333333333333333u)
                    break; /* not 8 digits */
                w -= 0x3030303030303030u;
                w = w * 10 + (w >> 8);
                w = ((w & 0x000000FF000000FFu) * 0x000F424000000064u +
                     ((w >> 16) & 0x000000FF000000FFu) * 0x0000271000000001u) >> 32;
                m = m * 100000000u + (uint32_t)w;
                s += 8;
            }
        }
        for (; s < end && (d = (unsigned)(*s - '0')) < 10; s++)
            m = m * 10 + d;
        if (s == frac)
            return 0; /* no fraction digit */
        exp10 = -(int)(s - frac);
        nd += (size_t)(s - sig);
    }
    if (s != end)
        return 0;
    if (nd > 19)
        return fd_parse_decimal_exact(text, len, out); /* m overflowed */
    if (m == 0) {
        *out = 0.0; /* "-0" reads as 0, like the renderer writes it */
        return 1;
    }
    if (m <= ((uint64_t)1 << 53) && exp10 >= -22) {
        /* both operands exact: one correctly rounded operation */
        v = (double)m / fd_pow10_neg[-exp10];
    } else if (!fd_eisel_lemire(m, exp10, &v)) {
        return fd_parse_decimal_exact(text, len, out);
    }
    *out = text[0] == '-' ? -v : v;
    return 1;
}

/* ---- row reading -------------------------------------------------------- */

typedef struct fd_lines {
    const char *text;
    size_t len, pos;
    uint32_t line;
} fd_lines;

/* fd_next_line yields the next line without its LF or CRLF ending. */
static int fd_next_line(fd_lines *ls, fd_span *out)
{
    size_t start = ls->pos, end;
    const char *nl;
    if (ls->pos >= ls->len)
        return 0;
    nl = (const char *)memchr(ls->text + start, '\n', ls->len - start);
    end = nl ? (size_t)(nl - ls->text) : ls->len;
    ls->pos = nl ? end + 1 : ls->len;
    if (end > start && ls->text[end - 1] == '\r')
        end--;
    out->ptr = ls->text + start;
    out->len = end - start;
    ls->line++;
    return 1;
}

/* fd_control_mask flags the control characters (below 0x20, tab
 * included, or 0x7f) among the 8 bytes of w: the top bit of a flagged
 * byte is set. The lowest flagged byte is always a control character, and
 * there is one when any byte is flagged (the "has less than" and "has
 * zero" tests of bit hacks; a borrow can flag bytes above a real one). */
static uint64_t fd_control_mask(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    const uint64_t del = w ^ (ones * 0x7f);
    return (((w - ones * 0x20) & ~w) | ((del - ones) & ~del)) & highs;
}

/* FD_SPLIT_BYTE handles byte i of a row in fd_split. */
#define FD_SPLIT_BYTE(i)                                                          \
    do {                                                                          \
        unsigned char c_ = (unsigned char)row.ptr[i];                             \
        if (c_ == '\t') {                                                         \
            if (n == max)                                                         \
                return max + 1;                                                   \
            fields[n].ptr = row.ptr + start;                                      \
            fields[n].len = (i) - start;                                          \
            n++;                                                                  \
            start = (i) + 1;                                                      \
        } else if ((c_ < 0x20 || c_ == 0x7f) && *control == 0) {                  \
            *control = n + 1;                                                     \
        }                                                                         \
    } while (0)

/* fd_split splits a row at tabs into at most max fields; it returns the
 * number of fields found (max + 1 when there are more). *control is the
 * 1-based first field holding a control character, 0 when none does.
 * The row is read a word (8 bytes) at a time; on a little-endian machine
 * the first tab or control character of a word is found without a byte
 * loop (the flagged bytes below it are counted with one multiply). */
static size_t fd_split(fd_span row, fd_span *fields, size_t max, size_t *control)
{
    const int little = fd_little_endian();
    size_t n = 0, start = 0, i = 0, end;
    *control = 0;
    while (i + 8 <= row.len) {
        uint64_t w, mask;
        memcpy(&w, row.ptr + i, sizeof w);
        mask = fd_control_mask(w);
        if (!mask) {
            i += 8;
        } else if (little) {
            /* every flagged byte of the word, lowest first, without
             * reading the word again; a byte flagged by a borrow is one
             * FD_SPLIT_BYTE passes over */
            const size_t base = i;
            do {
                const uint64_t low = mask & (~mask + 1);
#if defined(__GNUC__) || defined(__clang__)
                i = base + (size_t)(__builtin_ctzll(low) >> 3);
#else
                /* bytes before the flagged one: each has its low bit set
                 * in (low - 1); the flagged byte adds one more */
                i = base + (size_t)((((low - 1) & 0x0101010101010101u) * 0x0101010101010101u) >> 56) - 1;
#endif
                FD_SPLIT_BYTE(i);
                mask ^= low;
            } while (mask);
            i = base + 8;
        } else {
            for (end = i + 8; i < end; i++)
                FD_SPLIT_BYTE(i);
        }
    }
    for (; i < row.len; i++)
        FD_SPLIT_BYTE(i);
    if (n == max)
        return max + 1;
    fields[n].ptr = row.ptr + start;
    fields[n].len = row.len - start;
    return n + 1;
}
#undef FD_SPLIT_BYTE

static int fd_span_eq(fd_span s, const char *lit)
{
    size_t n = strlen(lit);
    return s.len == n && memcmp(s.ptr, lit, n) == 0;
}

/* fd_char_class sorts bytes for the text checks: FD_CH_SLUG [a-z0-9],
 * FD_CH_TAG [a-z0-9_.-], FD_CH_CLASS [A-Za-z0-9_/.-]. */
#define FD_CH_SLUG 1
#define FD_CH_TAG 2
#define FD_CH_CLASS 4
static const unsigned char fd_char_class[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 6, 4,
    7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 0, 0, 0, 0, 0, 0,
    0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0, 6,
    0, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
    7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

static int fd_is_lower_digit(char c)
{
    return fd_char_class[(unsigned char)c] & FD_CH_SLUG;
}

/* fd_valid_slug: 3-48 bytes of [a-z0-9] with single '-' between them. */
static int fd_valid_slug(const char *s, size_t n)
{
    size_t i;
    if (n < 3 || n > 48 || !fd_is_lower_digit(s[0]) || !fd_is_lower_digit(s[n - 1]))
        return 0;
    for (i = 0; i < n; i++) {
        if (s[i] == '-') {
            if (s[i - 1] == '-')
                return 0;
        } else if (!fd_is_lower_digit(s[i])) {
            return 0;
        }
    }
    return 1;
}

/* fd_valid_tag checks a Blam tag path: at most 240 bytes, components of
 * [a-z0-9_.-] (never "." or "..") joined by single '\', starting with
 * mjolnir\forge\<pack-slug>\ and at least one more component. It stores
 * the pack component in *pack. */
static int fd_valid_tag(fd_span tag, fd_span *pack)
{
    static const char prefix[] = "mjolnir\\forge\\";
    const size_t plen = sizeof prefix - 1;
    const unsigned char *p, *end, *c;
    size_t n, comp = 2; /* the prefix holds the first two */
    if (tag.len > FD_MAX_TAG || tag.len <= plen || memcmp(tag.ptr, prefix, plen) != 0)
        return 0;
    p = (const unsigned char *)tag.ptr + plen;
    end = (const unsigned char *)tag.ptr + tag.len;
    for (;;) {
        /* one component: a run of [a-z0-9_.-], then '\\' or the end */
        for (c = p; p < end && (fd_char_class[*p] & FD_CH_TAG); p++) {
        }
        n = (size_t)(p - c);
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        if (comp == 2) {
            if (!fd_valid_slug((const char *)c, n))
                return 0;
            pack->ptr = (const char *)c;
            pack->len = n;
        }
        comp++;
        if (p == end)
            return comp >= 4;
        if (*p++ != '\\')
            return 0; /* a byte no component may hold */
    }
}

static int fd_tag_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int c = memcmp(a, b, n);
    if (c != 0)
        return c;
    return an < bn ? -1 : (an > bn ? 1 : 0);
}

/* fd_find_index returns the position in by_tag where tag is or belongs;
 * *found says whether it is there. */
static size_t fd_find_index(const fd_inventory *inv, const char *tag, size_t len, int *found)
{
    size_t lo = 0, hi = inv->def_count;
    *found = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const fd_door_def *d = &inv->defs[inv->by_tag[mid]];
        int c = fd_tag_cmp(d->tag, d->tag_len, tag, len);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* fd_find_index_near is fd_find_index for files written in tag order:
 * it first tries position hint (where the previous row's tag was, plus
 * one), which two comparisons confirm, and searches the whole index only
 * when the tag is elsewhere. */
static size_t fd_find_index_near(const fd_inventory *inv, const char *tag, size_t len,
                                 size_t hint, int *found)
{
    int c = 1;
    if (hint <= inv->def_count) {
        if (hint < inv->def_count) {
            const fd_door_def *d = &inv->defs[inv->by_tag[hint]];
            c = fd_tag_cmp(d->tag, d->tag_len, tag, len);
        }
        if (c >= 0) {
            const fd_door_def *before = hint > 0 ? &inv->defs[inv->by_tag[hint - 1]] : NULL;
            if (!before || fd_tag_cmp(before->tag, before->tag_len, tag, len) < 0) {
                *found = c == 0;
                return hint;
            }
        }
    }
    return fd_find_index(inv, tag, len, found);
}

static void fd_reject(fd_rejection *list, size_t *count, uint32_t line, size_t field,
                      fd_status reason)
{
    if (*count < FD_MAX_REJECTIONS) {
        list[*count].line = line;
        list[*count].field = (uint16_t)field;
        list[*count].reason = (uint16_t)reason;
    }
    (*count)++;
}

void fd_inventory_init(fd_inventory *inv)
{
    if (!inv)
        return;
    memset(inv, 0, sizeof *inv);
    inv->generation = 1;
    inv->doors_status = (uint16_t)FD_FILE_MISSING;
    inv->installed_status = (uint16_t)FD_FILE_MISSING;
}

/* fd_check_door_row validates one doors.txt row into def; it returns FD_OK
 * or the reason, with the 1-based field in *field. */
static fd_status fd_check_door_row(const fd_span *f, fd_door_def *def, size_t *field)
{
    double v[9];
    fd_span pack = {NULL, 0};
    size_t i;
    *field = 1;
    if (!fd_valid_tag(f[0], &pack))
        return FD_ROW_BAD_TAG;
    for (i = 0; i < 9; i++) {
        *field = i + 2;
        if (!fd_parse_decimal(f[i + 1].ptr, f[i + 1].len, &v[i]))
            return FD_ROW_BAD_NUMBER;
    }
    *field = 2;
    if (!(v[0] > 0.0 && v[0] <= 16.0))
        return FD_ROW_TRAVEL_RANGE;
    *field = 3;
    if (!(v[1] > 0.0 && v[1] <= 8.0))
        return FD_ROW_SPEED_RANGE;
    for (i = 0; i < 3; i++) {
        *field = 4 + i;
        if (!(v[2 + i] > 0.0 && v[2 + i] <= 32.0))
            return FD_ROW_TRIGGER_RANGE;
    }
    *field = 7;
    if (!(v[5] >= 0.0 && v[5] <= 10.0))
        return FD_ROW_HOLD_RANGE;
    for (i = 0; i < 3; i++) {
        *field = 8 + i;
        if (!(v[6 + i] >= 0.01 && v[6 + i] <= 64.0))
            return FD_ROW_PANEL_RANGE;
    }
    memcpy(def->tag, f[0].ptr, f[0].len);
    def->tag[f[0].len] = '\0';
    def->tag_len = (uint16_t)f[0].len;
    def->binding = FD_UNBOUND;
    def->travel = v[0];
    def->speed = v[1];
    for (i = 0; i < 3; i++) {
        def->trigger[i] = v[2 + i];
        def->panel[i] = v[6 + i];
    }
    def->hold = v[5];
    return FD_OK;
}

fd_status fd_inventory_parse_doors(fd_inventory *inv, const char *text, size_t len)
{
    fd_lines ls;
    fd_span row, f[10];
    size_t hint = 0; /* where the next tag goes when rows are in tag order */
    if (!inv)
        return FD_ERR_ARGUMENT;
    inv->generation++;
    inv->def_count = 0;
    inv->doors_rejected = 0;
    inv->bound_count = 0;
    inv->installed_status = (uint16_t)FD_FILE_MISSING;
    inv->installed_rows = 0;
    inv->installed_rejected = 0;
    if (!text) {
        inv->doors_status = (uint16_t)FD_FILE_MISSING;
        return FD_FILE_MISSING;
    }
    ls.text = text;
    ls.len = len;
    ls.pos = 0;
    ls.line = 0;
    if (!fd_next_line(&ls, &row) || !fd_span_eq(row, "forge-doors 1")) {
        inv->doors_status = (uint16_t)FD_FILE_BAD_HEADER;
        return FD_FILE_BAD_HEADER;
    }
    while (fd_next_line(&ls, &row)) {
        size_t n, field = 0, at, control;
        int found;
        fd_status st = FD_OK;
        fd_door_def *def;
        if (row.len == 0) {
            fd_reject(inv->doors_rejections, &inv->doors_rejected, ls.line, 0, FD_ROW_EMPTY);
            continue;
        }
        n = fd_split(row, f, 10, &control);
        if (n != 10) {
            fd_reject(inv->doors_rejections, &inv->doors_rejected, ls.line, 0,
                      FD_ROW_FIELD_COUNT);
            continue;
        }
        if (control) {
            st = FD_ROW_CONTROL_CHAR;
            field = control;
        }
        if (st == FD_OK && inv->def_count == FD_MAX_DEFINITIONS) {
            /* validate into a scratch copy: a bad row says what is wrong */
            fd_door_def scratch;
            st = fd_check_door_row(f, &scratch, &field);
            if (st == FD_OK) {
                st = FD_ROW_LIMIT;
                field = 0;
            }
        } else if (st == FD_OK) {
            st = fd_check_door_row(f, &inv->defs[inv->def_count], &field);
        }
        if (st == FD_OK) {
            at = fd_find_index_near(inv, f[0].ptr, f[0].len, hint, &found);
            hint = at + 1;
            if (found) {
                st = FD_ROW_DUPLICATE_TAG;
                field = 1;
            } else {
                def = &inv->defs[inv->def_count];
                def->line = ls.line;
                memmove(&inv->by_tag[at + 1], &inv->by_tag[at],
                        (inv->def_count - at) * sizeof inv->by_tag[0]);
                inv->by_tag[at] = (uint16_t)inv->def_count;
                inv->def_count++;
            }
        }
        if (st != FD_OK)
            fd_reject(inv->doors_rejections, &inv->doors_rejected, ls.line, field, st);
    }
    inv->doors_status = (uint16_t)FD_OK;
    return FD_OK;
}

const fd_door_def *fd_inventory_find(const fd_inventory *inv, const char *tag, size_t len)
{
    int found;
    size_t at;
    if (!inv || !tag)
        return NULL;
    at = fd_find_index(inv, tag, len, &found);
    return found ? &inv->defs[inv->by_tag[at]] : NULL;
}

/* fd_valid_semver checks MAJOR.MINOR.PATCH[-pre][+build] syntax. */
static int fd_valid_semver(fd_span v)
{
    size_t i = 0, part;
    if (v.len == 0 || v.len > 64)
        return 0;
    for (part = 0; part < 3; part++) {
        size_t start = i;
        while (i < v.len && v.ptr[i] >= '0' && v.ptr[i] <= '9')
            i++;
        if (i == start || (i - start > 1 && v.ptr[start] == '0'))
            return 0;
        if (part < 2) {
            if (i >= v.len || v.ptr[i] != '.')
                return 0;
            i++;
        }
    }
    if (i < v.len && v.ptr[i] == '-') {
        /* pre-release identifiers: alphanumerics and '-', numeric ones
         * without leading zeros */
        do {
            size_t start = ++i;
            int numeric = 1;
            while (i < v.len && v.ptr[i] != '.' && v.ptr[i] != '+') {
                char c = v.ptr[i];
                if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                      (c >= 'A' && c <= 'Z') || c == '-'))
                    return 0;
                if (!(c >= '0' && c <= '9'))
                    numeric = 0;
                i++;
            }
            if (i == start || (numeric && i - start > 1 && v.ptr[start] == '0'))
                return 0;
        } while (i < v.len && v.ptr[i] == '.');
    }
    if (i < v.len && v.ptr[i] == '+') {
        do {
            size_t start = ++i;
            while (i < v.len && v.ptr[i] != '.') {
                char c = v.ptr[i];
                if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                      (c >= 'A' && c <= 'Z') || c == '-'))
                    return 0;
                i++;
            }
            if (i == start)
                return 0;
        } while (i < v.len && v.ptr[i] == '.');
    }
    return i == v.len;
}

static int fd_valid_piece_id(fd_span s)
{
    size_t i;
    if (s.len < 1 || s.len > 48)
        return 0;
    for (i = 0; i < s.len; i++)
        if (!fd_is_lower_digit(s.ptr[i]) && s.ptr[i] != '_')
            return 0;
    return 1;
}

/* fd_valid_class checks /Game/MJOLNIR/Forge/<pack>/.../<Asset>.<Asset>_C. */
static int fd_valid_class(fd_span c, fd_span pack)
{
    static const char prefix[] = "/Game/MJOLNIR/Forge/";
    size_t plen = sizeof prefix - 1, i, slash = 0, dot = 0, ndots = 0;
    const char *first_dot;
    if (c.len > 200 || c.len < plen + pack.len + 2 || memcmp(c.ptr, prefix, plen) != 0)
        return 0;
    for (i = plen; i < c.len; i++) /* the prefix's bytes are all of the class */
        if (!(fd_char_class[(unsigned char)c.ptr[i]] & FD_CH_CLASS))
            return 0;
    /* the last slash, and the one dot (ndots counts up to two) */
    for (i = c.len; i-- > 0;)
        if (c.ptr[i] == '/') {
            slash = i;
            break;
        }
    first_dot = (const char *)memchr(c.ptr, '.', c.len);
    if (first_dot) {
        dot = (size_t)(first_dot - c.ptr);
        ndots = memchr(first_dot + 1, '.', c.len - dot - 1) ? 2 : 1;
    }
    /* asset name between last slash and the dot; object name is name + "_C" */
    if (ndots != 1 || dot < slash + 2) {
        return 0;
    } else {
        size_t an = dot - slash - 1;
        if (c.len - dot - 1 != an + 2 || memcmp(c.ptr + slash + 1, c.ptr + dot + 1, an) != 0 ||
            memcmp(c.ptr + c.len - 2, "_C", 2) != 0)
            return 0;
    }
    return 1;
}

static int fd_class_in_pack(fd_span c, fd_span pack)
{
    size_t plen = sizeof "/Game/MJOLNIR/Forge/" - 1;
    return c.len > plen + pack.len && memcmp(c.ptr + plen, pack.ptr, pack.len) == 0 &&
           c.ptr[plen + pack.len] == '/';
}

fd_status fd_inventory_bind_installed(fd_inventory *inv, const char *text, size_t len,
                                      fd_installed_row_fn each, void *ctx)
{
    fd_lines ls;
    fd_span row, f[6], prev = {NULL, 0};
    size_t i, hint = 0; /* where the next tag is when rows are in tag order */
    if (!inv)
        return FD_ERR_ARGUMENT;
    inv->generation++;
    inv->installed_rows = 0;
    inv->installed_rejected = 0;
    inv->bound_count = 0;
    for (i = 0; i < inv->def_count; i++)
        inv->defs[i].binding = FD_UNBOUND;
    if (!text) {
        inv->installed_status = (uint16_t)FD_FILE_MISSING;
        return FD_FILE_MISSING;
    }
    ls.text = text;
    ls.len = len;
    ls.pos = 0;
    ls.line = 0;
    if (!fd_next_line(&ls, &row) || !fd_span_eq(row, "forge-installed 1")) {
        inv->installed_status = (uint16_t)FD_FILE_BAD_HEADER;
        return FD_FILE_BAD_HEADER;
    }
    while (fd_next_line(&ls, &row)) {
        fd_status st = FD_OK;
        size_t field = 0, n, control;
        fd_span pack = {NULL, 0};
        if (row.len == 0) {
            fd_reject(inv->installed_rejections, &inv->installed_rejected, ls.line, 0,
                      FD_ROW_EMPTY);
            continue;
        }
        n = fd_split(row, f, 6, &control);
        if (n != 6) {
            fd_reject(inv->installed_rejections, &inv->installed_rejected, ls.line, 0,
                      FD_ROW_FIELD_COUNT);
            continue;
        }
        if (control) {
            st = FD_ROW_CONTROL_CHAR;
            field = control;
        }
        if (st == FD_OK && !fd_valid_tag(f[0], &pack)) {
            st = FD_ROW_BAD_TAG;
            field = 1;
        }
        /* a pack field equal to the tag's pack component is a valid slug:
         * fd_valid_tag checked it; any other is checked on its own */
        if (st == FD_OK && !(pack.len == f[1].len && memcmp(pack.ptr, f[1].ptr, pack.len) == 0)) {
            if (!fd_valid_slug(f[1].ptr, f[1].len)) {
                st = FD_ROW_BAD_PACK_ID;
                field = 2;
            } else {
                st = FD_ROW_PACK_MISMATCH;
                field = 1;
            }
        }
        if (st == FD_OK && !fd_valid_semver(f[2])) {
            st = FD_ROW_BAD_VERSION;
            field = 3;
        }
        if (st == FD_OK && !fd_valid_piece_id(f[3])) {
            st = FD_ROW_BAD_PIECE_ID;
            field = 4;
        }
        if (st == FD_OK && !fd_span_eq(f[4], "block") && !fd_span_eq(f[4], "panel")) {
            st = FD_ROW_BAD_KIND;
            field = 5;
        }
        if (st == FD_OK && !fd_valid_class(f[5], f[1])) {
            st = FD_ROW_BAD_CLASS;
            field = 6;
        }
        if (st == FD_OK && !fd_class_in_pack(f[5], f[1])) {
            st = FD_ROW_PACK_MISMATCH;
            field = 6;
        }
        if (st == FD_OK && prev.ptr && fd_tag_cmp(prev.ptr, prev.len, f[0].ptr, f[0].len) == 0) {
            st = FD_ROW_DUPLICATE_TAG;
            field = 1;
        }
        if (st == FD_OK) {
            int found;
            size_t at = fd_find_index_near(inv, f[0].ptr, f[0].len, hint, &found);
            hint = found ? at + 1 : at;
            if (found) {
                fd_door_def *d = &inv->defs[inv->by_tag[at]];
                if (d->binding != FD_UNBOUND) {
                    st = FD_ROW_DUPLICATE_TAG;
                    field = 1;
                } else if (fd_span_eq(f[4], "panel")) {
                    d->binding = FD_BOUND;
                    inv->bound_count++;
                } else {
                    d->binding = FD_BOUND_NOT_PANEL;
                }
            }
        }
        if (st != FD_OK) {
            fd_reject(inv->installed_rejections, &inv->installed_rejected, ls.line, field, st);
            continue;
        }
        prev = f[0];
        inv->installed_rows++;
        if (each) {
            fd_installed_row r;
            r.line = ls.line;
            r.tag = f[0];
            r.pack = f[1];
            r.version = f[2];
            r.piece = f[3];
            r.kind = f[4];
            r.class_path = f[5];
            each(ctx, &r);
        }
    }
    inv->installed_status = (uint16_t)FD_OK;
    return FD_OK;
}

/* ---- geometry ------------------------------------------------------------ */

static double fd_dot(fd_vec3 a, fd_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

static fd_vec3 fd_sub(fd_vec3 a, fd_vec3 b)
{
    fd_vec3 r;
    r.x = a.x - b.x;
    r.y = a.y - b.y;
    r.z = a.z - b.z;
    return r;
}

static fd_vec3 fd_cross(fd_vec3 a, fd_vec3 b)
{
    fd_vec3 r;
    r.x = a.y * b.z - a.z * b.y;
    r.y = a.z * b.x - a.x * b.z;
    r.z = a.x * b.y - a.y * b.x;
    return r;
}

static int fd_vec_finite(fd_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

int fd_pose_valid(const fd_pose *p)
{
    const double t = FD_ROTATION_TOLERANCE;
    fd_vec3 c;
    if (!p || !fd_vec_finite(p->origin) || !fd_vec_finite(p->axis_x) ||
        !fd_vec_finite(p->axis_y) || !fd_vec_finite(p->axis_z))
        return 0;
    /* |a|^2 - 1 is about 2(|a| - 1): lengths within t of 1 */
    if (fabs(fd_dot(p->axis_x, p->axis_x) - 1.0) > 2.0 * t ||
        fabs(fd_dot(p->axis_y, p->axis_y) - 1.0) > 2.0 * t ||
        fabs(fd_dot(p->axis_z, p->axis_z) - 1.0) > 2.0 * t)
        return 0;
    if (fabs(fd_dot(p->axis_x, p->axis_y)) > t || fabs(fd_dot(p->axis_y, p->axis_z)) > t ||
        fabs(fd_dot(p->axis_z, p->axis_x)) > t)
        return 0;
    c = fd_cross(p->axis_x, p->axis_y); /* right-handed: x cross y = z */
    return fd_dot(c, p->axis_z) > 1.0 - 3.0 * t;
}

/* fd_to_local expresses a world point in a pose's local frame. */
static fd_vec3 fd_to_local(const fd_pose *p, fd_vec3 w)
{
    fd_vec3 d = fd_sub(w, p->origin), r;
    r.x = fd_dot(d, p->axis_x);
    r.y = fd_dot(d, p->axis_y);
    r.z = fd_dot(d, p->axis_z);
    return r;
}

static int fd_local_in_trigger(const fd_door_def *def, fd_vec3 l)
{
    return fabs(l.x) <= def->trigger[0] * 0.5 && fabs(l.y) <= def->trigger[1] * 0.5 &&
           l.z >= -0.5 && l.z <= def->trigger[2];
}

int fd_in_trigger(const fd_door_def *def, const fd_pose *closed, fd_vec3 point)
{
    if (!def || !closed || !fd_vec_finite(point))
        return 0;
    return fd_local_in_trigger(def, fd_to_local(closed, point));
}

static double fd_clamp_dist(double v, double lo, double hi)
{
    if (v < lo)
        return lo - v;
    if (v > hi)
        return v - hi;
    return 0.0;
}

/* fd_local_hits_box: strict sphere/box overlap; touching is not a hit. */
static int fd_local_hits_box(fd_vec3 l, double r, double hx, double hy, double z0, double z1)
{
    double dx = fd_clamp_dist(l.x, -hx, hx);
    double dy = fd_clamp_dist(l.y, -hy, hy);
    double dz = fd_clamp_dist(l.z, z0, z1);
    return dx * dx + dy * dy + dz * dz < r * r;
}

int fd_sphere_hits_sweep(const fd_door_def *def, const fd_pose *closed, double height,
                         fd_vec3 centre, double radius)
{
    if (!def || !closed || !fd_vec_finite(centre) || !(radius > 0.0) || !isfinite(radius))
        return 0;
    return fd_local_hits_box(fd_to_local(closed, centre), radius, def->panel[0] * 0.5,
                             def->panel[1] * 0.5, 0.0, height + def->panel[2]);
}

int fd_obstacle_counts(const fd_obstacle *o)
{
    if (!o || !fd_vec_finite(o->centre) || !(o->radius > 0.0) || !isfinite(o->radius))
        return 0;
    switch (o->kind) {
    case FD_OBSTACLE_BIPED:
    case FD_OBSTACLE_VEHICLE:
    case FD_OBSTACLE_OTHER:
        return 1;
    case FD_OBSTACLE_CRATE:
        if (o->physics == FD_PHYSICS_FIXED || o->physics == FD_PHYSICS_PHASED)
            return 0; /* construction piece */
        if (!o->parented && o->body == FD_BODY_FIXED_ONLY)
            return 0;
        return 1;     /* movable Normal crate; keyframed, mixed, unknown */
    default:
        return 1;     /* unknown kinds stay obstacles */
    }
}

fd_pose fd_pose_at(const fd_pose *closed, double height)
{
    fd_pose p = *closed;
    p.origin.x += closed->axis_z.x * height;
    p.origin.y += closed->axis_z.y * height;
    p.origin.z += closed->axis_z.z * height;
    return p;
}

static int fd_pose_near(const fd_pose *a, const fd_pose *b)
{
    const double t = FD_POSE_TOLERANCE;
    const double *pa = &a->origin.x, *pb = &b->origin.x;
    int i;
    for (i = 0; i < 3; i++)
        if (!(fabs(pa[i] - pb[i]) <= t))
            return 0;
    if (!(fabs(a->axis_x.x - b->axis_x.x) <= t && fabs(a->axis_x.y - b->axis_x.y) <= t &&
          fabs(a->axis_x.z - b->axis_x.z) <= t && fabs(a->axis_y.x - b->axis_y.x) <= t &&
          fabs(a->axis_y.y - b->axis_y.y) <= t && fabs(a->axis_y.z - b->axis_y.z) <= t &&
          fabs(a->axis_z.x - b->axis_z.x) <= t && fabs(a->axis_z.y - b->axis_z.y) <= t &&
          fabs(a->axis_z.z - b->axis_z.z) <= t))
        return 0;
    return 1;
}

/* ---- runtime --------------------------------------------------------------- */

void fd_runtime_init(fd_runtime *rt)
{
    if (!rt)
        return;
    memset(rt, 0, sizeof *rt);
    fd_inventory_init(&rt->inv);
    rt->role = FD_ROLE_HOST;
}

fd_status fd_runtime_load_inventory(fd_runtime *rt, const char *doors, size_t doors_len,
                                    const char *installed, size_t installed_len)
{
    if (!rt)
        return FD_ERR_ARGUMENT;
    fd_inventory_parse_doors(&rt->inv, doors, doors_len);
    if (rt->inv.doors_status == FD_OK)
        fd_inventory_bind_installed(&rt->inv, installed, installed_len, NULL, NULL);
    rt->inventory_loaded = 1;
    return fd_runtime_gate(rt);
}

void fd_runtime_report_build(fd_runtime *rt, const char *build_id)
{
    static const char *const allow[] = {FD_SUPPORTED_BUILDS};
    size_t i;
    if (!rt)
        return;
    rt->build_reported = 1;
    rt->build_ok = 0;
    if (!build_id)
        return;
    for (i = 0; i < sizeof allow / sizeof allow[0]; i++)
        if (strcmp(allow[i], build_id) == 0)
            rt->build_ok = 1;
}

void fd_runtime_report_forge(fd_runtime *rt, int loaded, uint32_t api_marker)
{
    if (!rt)
        return;
    rt->forge_loaded = (uint8_t)(loaded ? 1 : 0);
    rt->forge_api = api_marker;
}

fd_status fd_runtime_gate(const fd_runtime *rt)
{
    if (!rt)
        return FD_ERR_ARGUMENT;
    if (!rt->build_reported)
        return FD_GATE_BUILD_UNKNOWN;
    if (!rt->build_ok)
        return FD_GATE_BUILD_UNSUPPORTED;
    if (!rt->forge_loaded)
        return FD_GATE_FORGE_WAITING;
    if (rt->forge_api < FD_FORGE_NATIVE_API_MIN)
        return FD_GATE_FORGE_OLD;
    if (rt->inv.doors_status == FD_FILE_BAD_HEADER ||
        rt->inv.installed_status == FD_FILE_BAD_HEADER)
        return FD_GATE_INVENTORY_INVALID;
    if (!rt->inventory_loaded || rt->inv.doors_status != FD_OK ||
        rt->inv.installed_status != FD_OK)
        return FD_GATE_INVENTORY_MISSING;
    return FD_OK;
}

void fd_runtime_begin_world(fd_runtime *rt, uint64_t world_instance, fd_role role)
{
    if (!rt)
        return;
    rt->world = world_instance;
    rt->role = (uint8_t)role;
    rt->migrated = 0;
    rt->scanning = 0;
    rt->have_tick = 0;
    rt->last_tick = 0;
    rt->panel_count = 0;
    memset(rt->bodies, 0, sizeof rt->bodies);
}

void fd_runtime_become_host(fd_runtime *rt)
{
    if (!rt || rt->role == FD_ROLE_HOST)
        return;
    rt->role = FD_ROLE_HOST;
    rt->migrated = 1;
}

/* fd_bound_def returns the bound definition of a tag, or NULL. */
static const fd_door_def *fd_bound_def(const fd_inventory *inv, const char *tag, size_t len)
{
    const fd_door_def *d = fd_inventory_find(inv, tag, len);
    return d && d->binding == FD_BOUND ? d : NULL;
}

fd_physics fd_runtime_seed_physics(const fd_runtime *rt, const char *tag, size_t tag_len,
                                   fd_placement_source source, fd_physics placement)
{
    if (!rt || !tag || source != FD_PLACEMENT_SCENARIO)
        return placement;
    return fd_bound_def(&rt->inv, tag, tag_len) ? FD_PHYSICS_FIXED : placement;
}

fd_body_class fd_runtime_classify_body(fd_runtime *rt, uint32_t salted_tag,
                                       fd_classify_fn classify, void *ctx)
{
    fd_body_entry *e;
    uint32_t h;
    fd_body_class c;
    if (!rt)
        return FD_BODY_UNKNOWN;
    h = salted_tag * 2654435761u;
    e = &rt->bodies[(h >> 24) % FD_BODY_CACHE_SIZE];
    if (e->used && e->world == rt->world && e->salted_tag == salted_tag)
        return (fd_body_class)e->body;
    if (!classify)
        return FD_BODY_UNKNOWN;
    c = classify(ctx, salted_tag);
    if ((unsigned)c > FD_BODY_MIXED)
        c = FD_BODY_UNKNOWN;
    e->used = 1;
    e->world = rt->world;
    e->salted_tag = salted_tag;
    e->body = (uint8_t)c;
    return c;
}

void fd_runtime_begin_scan(fd_runtime *rt)
{
    size_t i;
    if (!rt)
        return;
    rt->scanning = 1;
    for (i = 0; i < rt->panel_count; i++) {
        rt->panels[i].seen = 0;
        rt->panels[i].usable = 0;
    }
}

static fd_panel *fd_panel_by_handle(fd_runtime *rt, uint32_t handle)
{
    size_t i;
    for (i = 0; i < rt->panel_count; i++)
        if (rt->panels[i].handle == handle && rt->panels[i].world == rt->world)
            return &rt->panels[i];
    return NULL;
}

static void fd_release(fd_runtime *rt, fd_panel *p)
{
    size_t i = (size_t)(p - rt->panels);
    rt->panels[i] = rt->panels[rt->panel_count - 1];
    rt->panel_count--;
}

/* fd_automated reports whether a tracked panel may be animated now. */
static int fd_automated(const fd_runtime *rt, const fd_panel *p)
{
    return p->usable && p->verified && !p->editing && rt->role == FD_ROLE_HOST;
}

fd_status fd_runtime_observe_panel(fd_runtime *rt, const fd_panel_observation *obs,
                                   fd_observe_result *res)
{
    const fd_door_def *def;
    fd_panel *p;
    if (res)
        res->write_pose = 0;
    if (!rt || !obs || !obs->tag)
        return FD_ERR_ARGUMENT;
    p = fd_panel_by_handle(rt, obs->handle);
    if (p && p->entry != obs->entry) {
        /* replaced object: a new map-variant entry under the same handle */
        fd_release(rt, p);
        p = NULL;
    }
    if (p && p->def_generation == rt->inv.generation &&
        fd_tag_cmp(rt->inv.defs[p->def].tag, rt->inv.defs[p->def].tag_len, obs->tag,
                   obs->tag_len) == 0) {
        def = &rt->inv.defs[p->def];
    } else {
        def = fd_bound_def(&rt->inv, obs->tag, obs->tag_len);
    }
    if (!def || (uint16_t)(obs->handle >> 16) != obs->live_salt || obs->parented ||
        obs->physics == FD_PHYSICS_NORMAL) {
        fd_status why = !def ? FD_PANEL_UNMATCHED
                        : (uint16_t)(obs->handle >> 16) != obs->live_salt ? FD_PANEL_STALE_HANDLE
                        : obs->parented ? FD_PANEL_PARENTED
                                        : FD_PANEL_NORMAL_PHYSICS;
        if (p) {
            /* leaving automation raised (Normal physics, attached to a
             * parent, or its definition gone): put the authored pose back */
            if (why != FD_PANEL_STALE_HANDLE && res && p->verified && p->height > 0.0) {
                res->write_pose = 1;
                res->pose = p->closed;
            }
            if (why != FD_PANEL_STALE_HANDLE)
                fd_release(rt, p);
            /* a stale handle names an object that is gone: dropped at step */
        }
        return why;
    }
    if (!fd_pose_valid(&obs->pose)) {
        if (p) {
            p->seen = 1; /* keep its baseline, skip it this tick */
            p->usable = 0;
        }
        return FD_PANEL_INVALID_TRANSFORM;
    }
    if (!p) {
        if (rt->panel_count == FD_MAX_ACTIVE_PANELS)
            return FD_PANEL_LIMIT;
        p = &rt->panels[rt->panel_count++];
        memset(p, 0, sizeof *p);
        p->world = rt->world;
        p->handle = obs->handle;
        p->entry = obs->entry;
        p->closed = obs->pose;
        p->published = obs->pose;
        p->state = FD_DOOR_CLOSED;
        /* Only the authoritative simulation knows the pose is authored: a
         * client may be looking at a replicated, animated pose. */
        p->verified = (uint8_t)(rt->role == FD_ROLE_HOST);
    } else if (!fd_pose_near(&obs->pose, &p->published)) {
        /* external authored change: a new baseline on the host */
        p->closed = obs->pose;
        p->published = obs->pose;
        p->height = 0.0;
        p->state = FD_DOOR_CLOSED;
        p->stopped = 0;
        p->verified = (uint8_t)(rt->role == FD_ROLE_HOST);
    }
    p->def = (uint16_t)(def - rt->inv.defs);
    p->def_generation = rt->inv.generation;
    p->physics = obs->physics;
    p->seen = 1;
    p->usable = 1;
    if (!p->verified)
        return FD_NO_BASELINE;
    return FD_OK;
}

/* fd_scan is what the obstacles mean for one panel this tick. */
typedef struct fd_scan {
    int occupied;          /* a biped stands in the trigger */
    int close_blocked;     /* something is in the closing sweep */
    double open_limit;     /* highest lift the top may reach */
} fd_scan;

/* FD_CHUNK obstacles are filtered at a time into a stack buffer, so the
 * per-pair loop sees only obstacles that count. */
#define FD_CHUNK 64

/* fd_chunk holds a chunk of counted obstacles field by field (centre,
 * squared radius, biped or not), sorted by world x, so that each panel
 * visits only the obstacles in its x range. */
typedef struct fd_chunk {
    double x[FD_CHUNK], y[FD_CHUNK], z[FD_CHUNK], r2[FD_CHUNK];
    unsigned char biped[FD_CHUNK];
    double rmax; /* largest radius in the chunk */
    size_t n;
} fd_chunk;

/* fd_chunk_fill filters obstacles[0..count) (count <= FD_CHUNK) into c,
 * sorted by centre x. */
static void fd_chunk_fill(fd_chunk *c, const fd_obstacle *obstacles, size_t count)
{
    const fd_obstacle *keep[FD_CHUNK];
    size_t n = 0, i, j;
    c->rmax = 0.0;
    for (i = 0; i < count; i++) {
        const fd_obstacle *ob = &obstacles[i];
        if (!fd_obstacle_counts(ob))
            continue;
        /* insertion by x: chunks are small, and the order of the pairs
         * does not change a scan (it ORs flags and takes a minimum) */
        for (j = n; j > 0 && keep[j - 1]->centre.x > ob->centre.x; j--)
            keep[j] = keep[j - 1];
        keep[j] = ob;
        n++;
        if (ob->radius > c->rmax)
            c->rmax = ob->radius;
    }
    for (i = 0; i < n; i++) {
        c->x[i] = keep[i]->centre.x;
        c->y[i] = keep[i]->centre.y;
        c->z[i] = keep[i]->centre.z;
        c->r2[i] = keep[i]->radius * keep[i]->radius;
        c->biped[i] = (unsigned char)(keep[i]->kind == FD_OBSTACLE_BIPED);
    }
    c->n = n;
}

/* fd_reach is a world box around a panel: an obstacle whose centre lies
 * outside it cannot change the panel's scan. */
typedef struct fd_reach {
    double xlo, xhi;   /* world x range */
    double cy, cz;     /* world y and z centre */
    double ry, rz;     /* world y and z half extents */
} fd_reach;

/* fd_panel_reach returns the reach of a panel for obstacles of radius at
 * most rmax.
 *
 * Only an obstacle near the panel can change its scan: a biped whose
 * centre is in the trigger (local |x| <= tx, |y| <= ty, -0.5 <= z <= tz),
 * or a sphere within r of the panel's column (|x| < hx + r, |y| < hy + r)
 * that reaches the closing sweep (z in (-r, top + r)) or caps the lift
 * below the travel (z < travel + h + r; a cap at or above the travel
 * changes nothing). All of that lies in the local box |x| <= bx,
 * |y| <= by, z in [z0, z1]; the reach is that box's world bounding box,
 * widened by a margin far above the rounding and the 1e-4 rotation
 * tolerance (a 1e-4 error moves a point of a 100 m box by about 1 cm; the
 * margin is 1 % of the box). Near the ends of the double range the reach
 * is everything. */
static fd_reach fd_panel_reach(const fd_door_def *def, const fd_panel *p, double rmax)
{
    const double hx = def->panel[0] * 0.5, hy = def->panel[1] * 0.5, h = def->panel[2];
    const double tx = def->trigger[0] * 0.5, ty = def->trigger[1] * 0.5, tz = def->trigger[2];
    const fd_vec3 o = p->closed.origin, ax = p->closed.axis_x, ay = p->closed.axis_y,
                  az = p->closed.axis_z;
    const double r = rmax;
    const double bx = hx + r > tx ? hx + r : tx, by = hy + r > ty ? hy + r : ty;
    const double z0 = -0.5 < -r ? -0.5 : -r;
    const double z1 = def->travel + h + r > tz ? def->travel + h + r : tz;
    const double zm = (z0 + z1) * 0.5, bz = (z1 - z0) * 0.5;
    const double margin = 0.01 * (bx + by + fabs(z0) + fabs(z1)) +
                          1e-12 * (fabs(o.x) + fabs(o.y) + fabs(o.z));
    /* centre o + zm * az, half extents |axes| . (bx, by, bz) */
    const double wx = o.x + zm * az.x, wy = o.y + zm * az.y, wz = o.z + zm * az.z;
    const double ex = fabs(ax.x) * bx + fabs(ay.x) * by + fabs(az.x) * bz + margin;
    const double ey = fabs(ax.y) * bx + fabs(ay.y) * by + fabs(az.y) * bz + margin;
    const double ez = fabs(ax.z) * bx + fabs(ay.z) * by + fabs(az.z) * bz + margin;
    fd_reach b;
    b.xlo = wx - ex;
    b.xhi = wx + ex;
    b.cy = wy;
    b.cz = wz;
    b.ry = ey;
    b.rz = ez;
    if (!(isfinite(b.xlo) && isfinite(b.xhi) && isfinite(wy) && isfinite(wz) && isfinite(ey) &&
          isfinite(ez))) {
        b.xlo = -HUGE_VAL;
        b.xhi = HUGE_VAL;
        b.cy = b.cz = 0.0;
        b.ry = b.rz = HUGE_VAL;
    }
    return b;
}

/* fd_in_reach reports whether a world point lies in a panel's reach. */
static int fd_in_reach(const fd_reach *b, double x, double y, double z)
{
    return x >= b->xlo && x <= b->xhi && fabs(y - b->cy) <= b->ry && fabs(z - b->cz) <= b->rz;
}

/* fd_scan_chunk folds a chunk of counted obstacles into a panel's scan.
 * It evaluates only the obstacles in the panel's reach (a binary search
 * in the x-sorted chunk, then the y and z ranges); those pairs compute
 * exactly what fd_local_hits_box and fd_in_trigger would, and every pair
 * skipped is one that could not have changed the panel's motion. */
static void fd_scan_chunk(const fd_door_def *def, const fd_panel *p, const fd_chunk *c,
                          fd_scan *s)
{
    const double hx = def->panel[0] * 0.5, hy = def->panel[1] * 0.5, h = def->panel[2];
    const double tx = def->trigger[0] * 0.5, ty = def->trigger[1] * 0.5, tz = def->trigger[2];
    const double top = p->height + h;
    const int raised = p->height > 0.0;
    const fd_vec3 o = p->closed.origin, ax = p->closed.axis_x, ay = p->closed.axis_y,
                  az = p->closed.axis_z;
    const fd_reach b = fd_panel_reach(def, p, c->rmax);
    int occupied = s->occupied, blocked = s->close_blocked;
    double limit = s->open_limit;
    size_t i, lo = 0, hi = c->n;
    while (lo < hi) { /* first obstacle with x >= b.xlo */
        size_t mid = lo + (hi - lo) / 2;
        if (c->x[mid] < b.xlo)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (i = lo; i < c->n && c->x[i] <= b.xhi; i++) {
        double cx, cy, cz, r2, lx, ly, lz, dx, dy, dxy2;
        if (!fd_in_reach(&b, c->x[i], c->y[i], c->z[i]))
            continue;
        cx = c->x[i] - o.x;
        cy = c->y[i] - o.y;
        cz = c->z[i] - o.z;
        r2 = c->r2[i];
        lx = cx * ax.x + cy * ax.y + cz * ax.z;
        ly = cx * ay.x + cy * ay.y + cz * ay.z;
        lz = cx * az.x + cy * az.y + cz * az.z;
        dx = fd_clamp_dist(lx, -hx, hx);
        dy = fd_clamp_dist(ly, -hy, hy);
        dxy2 = dx * dx + dy * dy;
        if (c->biped[i] && fabs(lx) <= tx && fabs(ly) <= ty && lz >= -0.5 && lz <= tz)
            occupied = 1;
        if (dxy2 >= r2)
            continue; /* clear of the panel's column: neither blocks */
        if (raised) {
            const double dz = fd_clamp_dist(lz, 0.0, top);
            if (dxy2 + dz * dz < r2)
                blocked = 1;
        }
        /* an obstacle whose centre is above the panel top caps the lift at
         * the height where the top meets its lowest point over the panel */
        if (lz >= top) {
            const double lim = lz - sqrt(r2 - dxy2) - h;
            if (lim < limit)
                limit = lim;
        }
    }
    s->occupied = occupied;
    s->close_blocked = blocked;
    s->open_limit = limit;
}

static void fd_panel_advance(fd_panel *p, const fd_door_def *def, double dt, fd_scan s)
{
    double before = p->height;
    if (s.occupied)
        p->hold_left = def->hold;
    if ((p->state == FD_DOOR_CLOSED && s.occupied) ||
        (p->state == FD_DOOR_CLOSING && (s.occupied || s.close_blocked)) ||
        (p->state == FD_DOOR_OPEN && s.occupied && p->height < def->travel)) {
        if (p->state != FD_DOOR_OPEN)
            p->hold_left = def->hold;
        p->state = FD_DOOR_OPENING;
    }
    switch (p->state) {
    case FD_DOOR_OPENING: {
        double target = p->height + def->speed * dt, next;
        if (target > def->travel)
            target = def->travel;
        next = target < s.open_limit ? target : s.open_limit;
        if (next < p->height)
            next = p->height;
        p->stopped = (uint8_t)(next < target);
        p->height = next;
        if (p->height >= def->travel) {
            p->height = def->travel;
            p->state = FD_DOOR_OPEN;
            p->hold_left = def->hold;
        } else if (p->stopped) {
            p->state = FD_DOOR_OPEN; /* stopped beneath an obstacle: hold here */
        }
        break;
    }
    case FD_DOOR_OPEN:
        if (!s.occupied) {
            p->hold_left -= dt;
            if (p->hold_left <= 1e-9) {
                p->hold_left = 0.0;
                if (!s.close_blocked) {
                    p->state = FD_DOOR_CLOSING;
                    p->stopped = 0;
                    p->height -= def->speed * dt;
                }
            }
        }
        break;
    case FD_DOOR_CLOSING:
        p->height -= def->speed * dt;
        break;
    default:
        break;
    }
    if (p->state == FD_DOOR_CLOSING && p->height <= 0.0) {
        p->height = 0.0;
        p->state = FD_DOOR_CLOSED;
    }
    if (p->height != before) {
        p->published = fd_pose_at(&p->closed, p->height);
        p->dirty = 1;
    }
}

fd_status fd_runtime_step(fd_runtime *rt, uint64_t tick, double tick_seconds,
                          const fd_obstacle *obstacles, size_t count)
{
    fd_scan scans[FD_MAX_ACTIVE_PANELS];
    fd_status gate;
    size_t i, base;
    if (!rt || (count > 0 && !obstacles))
        return FD_ERR_ARGUMENT;
    if (rt->scanning) {
        /* deleted, replaced and travelled-away panels drop their baselines */
        for (i = rt->panel_count; i-- > 0;)
            if (!rt->panels[i].seen)
                fd_release(rt, &rt->panels[i]);
        rt->scanning = 0;
    }
    if (!isfinite(tick_seconds) || !(tick_seconds > 0.0) || tick_seconds > FD_MAX_TICK_SECONDS)
        return FD_STEP_INVALID;
    if (rt->have_tick && tick == rt->last_tick)
        return FD_STEP_PAUSED;
    /* a changed tick advances exactly one tick, however far it jumped */
    rt->have_tick = 1;
    rt->last_tick = tick;
    if (rt->role != FD_ROLE_HOST)
        return FD_STEP_NOT_HOST;
    gate = fd_runtime_gate(rt);
    if (gate != FD_OK)
        return gate;
    rt->ticks_advanced++;
    for (i = 0; i < rt->panel_count; i++) {
        scans[i].occupied = 0;
        scans[i].close_blocked = 0;
        scans[i].open_limit = HUGE_VAL;
    }
    for (base = 0; base < count; base += FD_CHUNK) {
        fd_chunk chunk;
        fd_chunk_fill(&chunk, obstacles + base, count - base < FD_CHUNK ? count - base : FD_CHUNK);
        for (i = 0; chunk.n > 0 && i < rt->panel_count; i++) {
            fd_panel *p = &rt->panels[i];
            if (fd_automated(rt, p))
                fd_scan_chunk(&rt->inv.defs[p->def], p, &chunk, &scans[i]);
        }
    }
    for (i = 0; i < rt->panel_count; i++) {
        fd_panel *p = &rt->panels[i];
        if (fd_automated(rt, p))
            fd_panel_advance(p, &rt->inv.defs[p->def], tick_seconds, scans[i]);
    }
    return FD_OK;
}

int fd_runtime_next_update(fd_runtime *rt, size_t *cursor, fd_pose_update *out)
{
    if (!rt || !cursor || !out)
        return 0;
    while (*cursor < rt->panel_count) {
        fd_panel *p = &rt->panels[(*cursor)++];
        if (p->dirty) {
            p->dirty = 0;
            out->handle = p->handle;
            out->entry = p->entry;
            out->pose = p->published;
            return 1;
        }
    }
    return 0;
}

/* fd_try_close closes a raised panel at once when its whole closing path
 * is clear; it reports whether the panel is now closed. */
static int fd_try_close(fd_runtime *rt, fd_panel *p, const fd_obstacle *obs, size_t count)
{
    const fd_door_def *def = &rt->inv.defs[p->def];
    size_t i;
    if (p->height <= 0.0)
        return 1;
    if (!p->verified)
        return 0;
    for (i = 0; i < count; i++) {
        if (fd_obstacle_counts(&obs[i]) &&
            fd_sphere_hits_sweep(def, &p->closed, p->height, obs[i].centre, obs[i].radius))
            return 0;
    }
    p->height = 0.0;
    p->hold_left = 0.0;
    p->stopped = 0;
    p->state = FD_DOOR_CLOSED;
    p->published = p->closed;
    p->dirty = 1;
    return 1;
}

size_t fd_runtime_enter_monitor(fd_runtime *rt, const fd_obstacle *obstacles, size_t count)
{
    size_t i, raised = 0;
    if (!rt || (count > 0 && !obstacles))
        return 0;
    for (i = 0; i < rt->panel_count; i++)
        if (!fd_try_close(rt, &rt->panels[i], obstacles, count))
            raised++;
    return raised;
}

fd_status fd_runtime_request_edit(fd_runtime *rt, uint32_t handle, fd_edit edit,
                                  const fd_obstacle *obstacles, size_t count)
{
    fd_panel *p;
    (void)edit; /* grab, duplicate, rotate and physics changes share the rule */
    if (!rt || (count > 0 && !obstacles))
        return FD_ERR_ARGUMENT;
    p = fd_panel_by_handle(rt, handle);
    if (!p)
        return FD_OK; /* unrelated objects stay editable */
    if (!fd_try_close(rt, p, obstacles, count))
        return FD_EDIT_DEFERRED;
    p->editing = 1;
    return FD_OK;
}

void fd_runtime_finish_edit(fd_runtime *rt, uint32_t handle)
{
    fd_panel *p;
    if (!rt)
        return;
    p = fd_panel_by_handle(rt, handle);
    if (p)
        p->editing = 0;
}

fd_status fd_runtime_save_begin(const fd_runtime *rt)
{
    size_t i;
    if (!rt)
        return FD_ERR_ARGUMENT;
    for (i = 0; i < rt->panel_count; i++)
        if (!rt->panels[i].verified)
            return rt->migrated ? FD_SAVE_NEEDS_REHOST : FD_SAVE_DEFERRED;
    return FD_OK;
}

fd_status fd_runtime_save_project(const fd_runtime *rt, uint32_t handle, uint32_t entry,
                                  fd_pose *pose)
{
    size_t i;
    if (!rt || !pose)
        return FD_ERR_ARGUMENT;
    for (i = 0; i < rt->panel_count; i++) {
        const fd_panel *p = &rt->panels[i];
        if (p->handle == handle && p->entry == entry && p->world == rt->world) {
            if (!p->verified)
                return rt->migrated ? FD_SAVE_NEEDS_REHOST : FD_SAVE_DEFERRED;
            *pose = p->closed;
            return FD_OK;
        }
    }
    return FD_OK;
}

const fd_panel *fd_runtime_find_panel(const fd_runtime *rt, uint32_t handle)
{
    size_t i;
    if (!rt)
        return NULL;
    for (i = 0; i < rt->panel_count; i++)
        if (rt->panels[i].handle == handle && rt->panels[i].world == rt->world)
            return &rt->panels[i];
    return NULL;
}

#endif /* FORGE_DOORS_IMPLEMENTED */
#endif /* FORGE_DOORS_IMPLEMENTATION */
