// Command descset writes the errsvc.v1 contract, with every file it needs
// and the google.rpc error details the answers carry, as one
// FileDescriptorSet: the schema `buf curl --schema` reads to call the HTTP
// port over Connect or gRPC-Web (which serves no reflection) and print the
// details. The make target web-check runs it.
//
//	go run ./internal/descset -o errsvc.binpb
package main

import (
	"flag"
	"fmt"
	"os"

	_ "google.golang.org/genproto/googleapis/rpc/errdetails" // the details answers carry
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

func main() {
	out := flag.String("o", "errsvc.binpb", "FileDescriptorSet to write")
	flag.Parse()
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	var add func(protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		for i := range fd.Imports().Len() {
			add(fd.Imports().Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	add(errsvcv1.File_errsvc_v1_translation_service_proto)
	details, err := protoregistry.GlobalFiles.FindFileByPath("google/rpc/error_details.proto")
	if err != nil {
		fmt.Fprintln(os.Stderr, "descset:", err)
		os.Exit(1)
	}
	add(details)
	b, err := proto.Marshal(set)
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "descset:", err)
		os.Exit(1)
	}
}
