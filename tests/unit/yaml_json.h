/* docs/openapi.yaml as Jansson values, for the unit tests that hold the
 * document against the code (test_openapi_routes, test_registry_sources):
 * read with libyaml, mappings to objects, sequences to arrays, every
 * scalar a string. */
#ifndef TRV_UNIT_YAML_JSON_H
#define TRV_UNIT_YAML_JSON_H

#include <jansson.h>
#include <stdio.h>
#include <yaml.h>

static json_t *load_node(yaml_parser_t *ps, yaml_event_t *ev, const char **err);

static json_t *load_after(yaml_parser_t *ps, const char **err)
{
    yaml_event_t ev;
    json_t *v;
    if (!yaml_parser_parse(ps, &ev)) {
        *err = ps->problem ? ps->problem : "a YAML syntax error";
        return NULL;
    }
    v = load_node(ps, &ev, err);
    yaml_event_delete(&ev);
    return v;
}

static json_t *load_node(yaml_parser_t *ps, yaml_event_t *ev, const char **err)
{
    json_t *out;
    yaml_event_t in;
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        return json_stringn((const char *)ev->data.scalar.value, ev->data.scalar.length);
    case YAML_SEQUENCE_START_EVENT:
        out = json_array();
        for (;;) {
            if (!yaml_parser_parse(ps, &in)) {
                *err = ps->problem ? ps->problem : "a YAML syntax error";
                json_decref(out);
                return NULL;
            }
            if (in.type == YAML_SEQUENCE_END_EVENT) {
                yaml_event_delete(&in);
                return out;
            }
            json_t *item = load_node(ps, &in, err);
            yaml_event_delete(&in);
            if (!item) {
                json_decref(out);
                return NULL;
            }
            json_array_append_new(out, item);
        }
    case YAML_MAPPING_START_EVENT:
        out = json_object();
        for (;;) {
            json_t *key, *val;
            if (!yaml_parser_parse(ps, &in)) {
                *err = ps->problem ? ps->problem : "a YAML syntax error";
                json_decref(out);
                return NULL;
            }
            if (in.type == YAML_MAPPING_END_EVENT) {
                yaml_event_delete(&in);
                return out;
            }
            key = load_node(ps, &in, err);
            yaml_event_delete(&in);
            if (!key || !json_is_string(key)) {
                *err = key ? "a mapping key that is not a scalar" : *err;
                json_decref(key);
                json_decref(out);
                return NULL;
            }
            val = load_after(ps, err);
            if (!val) {
                json_decref(key);
                json_decref(out);
                return NULL;
            }
            json_object_set_new(out, json_string_value(key), val);
            json_decref(key);
        }
    case YAML_ALIAS_EVENT:
        *err = "YAML aliases are not used in docs/openapi.yaml";
        return NULL;
    default:
        *err = "an unexpected YAML event";
        return NULL;
    }
}

/* The document as JSON, or NULL with *err. */
static json_t *load_yaml(const char *path, const char **err)
{
    FILE *f = fopen(path, "rb");
    yaml_parser_t ps;
    yaml_event_t ev;
    json_t *doc = NULL;
    if (!f) {
        *err = "cannot be opened";
        return NULL;
    }
    yaml_parser_initialize(&ps);
    yaml_parser_set_input_file(&ps, f);
    /* STREAM-START, DOCUMENT-START, then the root node. */
    while (yaml_parser_parse(&ps, &ev)) {
        yaml_event_type_t t = ev.type;
        if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT
            || t == YAML_SCALAR_EVENT || t == YAML_ALIAS_EVENT) {
            doc = load_node(&ps, &ev, err);
            yaml_event_delete(&ev);
            break;
        }
        yaml_event_delete(&ev);
        if (t == YAML_STREAM_END_EVENT) {
            *err = "is empty";
            break;
        }
    }
    if (!doc && !*err) {
        *err = ps.problem ? ps.problem : "a YAML syntax error";
    }
    yaml_parser_delete(&ps);
    fclose(f);
    return doc;
}

#endif
