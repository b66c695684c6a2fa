# SPDX-License-Identifier: MIT
# tools/rules.mk — the etcd-fio CLI, linked statically against libfioreport.a. Everything but main.c also
# goes into an archive, so unit tests link the same objects the CLI runs (profile, svg, prom…).
TOOLS_SRCS   := $(wildcard tools/*.c)
TOOLS_OBJS   := $(patsubst tools/%.c,$(BUILD)/tools/%.o,$(TOOLS_SRCS))
TOOLS_LIB_OBJS := $(filter-out $(BUILD)/tools/main.o,$(TOOLS_OBJS))
TOOLS_A      := $(BUILD)/tools/libetcdfio-tools.a
CURL_CFLAGS  := $(shell pkg-config --cflags libcurl 2>/dev/null)
CURL_LIBS    := $(shell pkg-config --libs libcurl 2>/dev/null || echo -lcurl)
TOOLS_CFLAGS := $(CFLAGS_BASE) -Ilibreport/include -Ilibreport -Itools $(YAJL_CFLAGS) $(CURL_CFLAGS) \
                -DETCD_FIO_LIBDIR='"$(ENGINEDIR)"'
ETCD_FIO_BIN := $(BUILD)/etcd-fio

$(BUILD)/tools/%.o: tools/%.c $(wildcard tools/*.h) $(FIOR_PUBLIC_HDRS) $(FLAGS_STAMP) | need-build
	@mkdir -p $(dir $@)
	$(CC) $(TOOLS_CFLAGS) -c $< -o $@

$(TOOLS_A): $(TOOLS_LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(ETCD_FIO_BIN): $(BUILD)/tools/main.o $(TOOLS_A) $(FIOR_A) $(FLAGS_STAMP)
	$(CC) $(LDFLAGS_BASE) -o $@ $(BUILD)/tools/main.o $(TOOLS_A) $(FIOR_A) $(YAJL_LIBS) $(CURL_LIBS) -lm -lpthread

ALL_TARGETS += $(ETCD_FIO_BIN)
